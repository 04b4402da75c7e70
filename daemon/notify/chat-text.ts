// A notice's text as Slack and Discord read it. The text carries names a tenant chose (project and
// service names; commit messages and branch names if a notice ever carries them): it must reach
// the channel as plain words, never as markup the chat acts on: no `@everyone`/`@here`/`<!channel>`
// or user/role mentions pinging the whole workspace, no `<https://evil|Open the dashboard>` or
// `[text](url)` link dressed as something else, no bold/code/quote formatting.
//
// Slack: `&`, `<` and `>` are the only characters it parses for mentions and links, and escaping
// them as entities is its documented way to send them as text; `mrkdwn: false` turns off the
// *bold*/_italic_/`code` formatting and `link_names` stays off (bare `@here` is not a mention).
// Discord: `allowed_mentions: {parse: []}` pings nobody, whatever the text says; every markdown
// character is escaped with a backslash (a masked link needs `[` `]` `(` `)`), and `@` gets a
// zero-width joiner so `@everyone` does not even look like one.

const DISCORD_MAX = 2000;

export function slackPayload(text: string): { text: string; mrkdwn: false; link_names: false } {
  return { text: text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;'), mrkdwn: false, link_names: false };
}

export function discordPayload(text: string): { content: string; allowed_mentions: { parse: never[] } } {
  // (`-` and `#` only mark lists and headings at a line's start: the text is made one line, and it
  // starts with "Berth:"; ids with dashes stay searchable)
  const escaped = text
    .replace(/[\r\n]+/g, ' ')
    .replace(/[\\*_~`|>[\]()<:]/g, (c) => `\\${c}`)
    .replaceAll('@', '@\u200d');
  // cut before the limit without leaving a lone backslash at the end
  const content = escaped.length <= DISCORD_MAX ? escaped : escaped.slice(0, DISCORD_MAX - 1).replace(/\\$/, '') + '…';
  return { content, allowed_mentions: { parse: [] } };
}
