// The plan's promise: every top-level key and every key of every service appears in exactly one
// of `mapped` or `unsupported` (an unsupported entry may name a part of a mapped key, such as
// `ports[1]` or `deploy.replicas`: the key is mapped and that part is not).
import { expect } from 'chai';
import type { ComposePlan } from '../../shared/types.js';

function checkKeys(where: string, keys: string[], mapped: string[], unsupported: string[]): void {
  for (const key of keys) {
    const isMapped = mapped.filter((k) => k === key).length;
    const whole = unsupported.filter((k) => k === key).length;
    const parts = unsupported.filter((k) => k.startsWith(`${key}.`) || k.startsWith(`${key}[`)).length;
    expect(isMapped + whole, `${where}: ${key} is in mapped ${isMapped} time(s) and unsupported ${whole} time(s)`).to.be.at.most(1);
    expect(isMapped + whole + parts, `${where}: ${key} is neither mapped nor listed unsupported`).to.be.at.least(1);
  }
  for (const key of mapped) expect(keys, `${where}: mapped names ${key}, which the file does not have`).to.include(key);
  for (const key of unsupported) expect(keys, `${where}: unsupported names ${key}, which the file does not have`).to.include(key.split(/[.[]/)[0]);
}

export function expectEveryKeyAccounted(document: Record<string, unknown>, plan: ComposePlan): void {
  const unsupportedOf = (service: string | null) => plan.unsupported.filter((u) => u.service === service).map((u) => u.key);
  checkKeys('top level', Object.keys(document), plan.mapped ?? [], unsupportedOf(null));
  const services = document.services as Record<string, Record<string, unknown> | null>;
  expect(plan.services.map((s) => s.service)).to.deep.equal(Object.keys(services));
  for (const s of plan.services) {
    checkKeys(`service ${s.service}`, Object.keys(services[s.service] ?? {}), s.mapped, unsupportedOf(s.service));
  }
  for (const u of plan.unsupported)
    expect(u.why, `${u.service ?? 'top level'} ${u.key}`)
      .to.be.a('string')
      .with.length.above(5);
}
