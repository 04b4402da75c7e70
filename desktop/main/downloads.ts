// Downloads for the window (`berth.download`): a backup file or a database's CA certificate,
// saved where the user picks in the save dialog. The main process attaches the key, streams the
// answer into `<file>.part` (never the whole file in memory) and renames it into place when the
// last byte is written; a failure removes the part file and leaves any file already there alone.
import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { FetchLike } from '../../shared/pinned-tls.js';
import type { BridgeResponse, DownloadResult } from '../ipc/contract.js';
import { connectionError } from './connection.js';

/** Electron's dialog.showSaveDialog, as the app calls it (electron-main binds it to the window). */
export type ShowSaveDialog = (options: { title: string; defaultPath: string }) => Promise<{ canceled: boolean; filePath?: string }>;

/** The file name of a Content-Disposition header (`filename*=UTF-8''…` or `filename="…"`), without any directory. */
function dispositionFilename(header: string | null): string | null {
  if (!header) return null;
  let name: string | null = null;
  const star = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header);
  if (star) {
    try {
      name = decodeURIComponent(star[1]!.trim());
    } catch {
      name = null;
    }
  }
  if (!name) name = /filename\s*=\s*"([^"]*)"/i.exec(header)?.[1] ?? /filename\s*=\s*([^;\s]+)/i.exec(header)?.[1] ?? null;
  return name ? safeFilename(name) : null;
}

/** A name fit for a save dialog's default: the last path segment, no control characters. */
function safeFilename(name: string): string | null {
  // eslint-disable-next-line no-control-regex
  const bare = name.replace(/[\u0000-\u001f\u007f]/g, '');
  const cleaned = basename(bare.replace(/\\/g, '/')).trim();
  return cleaned && cleaned !== '.' && cleaned !== '..' ? cleaned : null;
}

async function failureOf(res: Response): Promise<BridgeResponse> {
  const text = await res.text().catch(() => '');
  try {
    return { status: res.status, body: JSON.parse(text) as unknown };
  } catch {
    return { status: res.status, body: { error: { code: `http_${res.status}`, message: text || `HTTP ${res.status}` } } };
  }
}

export interface DownloadRequest {
  /** The full URL (server URL + allowed path). */
  url: string;
  key: string;
  fetch: FetchLike;
  suggestedName: string;
  serverName: string;
  showSaveDialog: ShowSaveDialog;
}

/** Asks the server, then the user (the dialog names the file as the server does), then streams the body into the file. */
export async function downloadToFile(o: DownloadRequest): Promise<DownloadResult> {
  let res: Response;
  try {
    res = await o.fetch(o.url, { headers: { authorization: `Bearer ${o.key}` } });
  } catch (err) {
    return { saved: false, failure: { status: 0, body: { error: { code: 'unreachable', message: `${o.serverName} cannot be reached: ${connectionError(err)}` } } } };
  }
  if (!res.ok || !res.body) return { saved: false, failure: await failureOf(res) };
  const name = dispositionFilename(res.headers.get('content-disposition')) ?? safeFilename(o.suggestedName) ?? 'download';
  let choice: { canceled: boolean; filePath?: string };
  try {
    choice = await o.showSaveDialog({ title: 'Save download', defaultPath: name });
  } catch (err) {
    await res.body.cancel().catch(() => undefined);
    throw err;
  }
  if (choice.canceled || !choice.filePath) {
    await res.body.cancel().catch(() => undefined);
    return { saved: false };
  }
  const part = `${choice.filePath}.part`;
  try {
    await pipeline(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), createWriteStream(part, { mode: 0o600 }));
    await rename(part, choice.filePath);
  } catch (err) {
    await rm(part, { force: true });
    return { saved: false, failure: { status: 0, body: { error: { code: 'download_failed', message: `the download from ${o.serverName} failed: ${connectionError(err)}` } } } };
  }
  return { saved: true, path: choice.filePath, bytes: (await stat(choice.filePath)).size };
}
