import { open } from 'node:fs/promises';
import { unjudgedSentence } from '../../shared/wording.js';
import { RewindError } from '../errors.js';

/**
 * The versions of an agent's CLI judged right by the conformance tier (`npm run conformance`), kept
 * as data in each agent's folder (`src/engine/agents/<id>/judged.json`) and read here: a session
 * written by a newer, unjudged version is read and shown, never rewritten.
 */
export interface JudgedVersions {
  /** The npm package of the CLI (`npm run conformance -- --latest` installs its newest release). */
  cli: string;
  /**
   * How close a version must be to a judged one to share its layout: "minor" (Codex: 0.169.x is
   * 0.169's format) or "patch" (Claude Code ships a build a day: each is judged on its own).
   */
  sameLayout: 'minor' | 'patch';
  /** Whether the CLI records its version in the sessions (else no session can be gated by it). */
  recordsVersion: boolean;
  judged: { version: string; date: string; cases: string }[];
}

const SEMVER = /^(\d+)\.(\d+)\.(\d+)/;

function parts(v: string): [number, number, number] | null {
  const m = SEMVER.exec(v);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

/** <0, 0, >0 as `a` is older, the same or newer than `b` (major.minor.patch; pre-release tags ignored). */
export function compareVersions(a: string, b: string): number {
  const x = parts(a) ?? [0, 0, 0];
  const y = parts(b) ?? [0, 0, 0];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

/** The newest version judged right. */
export function newestJudged(j: JudgedVersions): string {
  return j.judged.map((e) => e.version).reduce((a, b) => (compareVersions(a, b) >= 0 ? a : b));
}

/**
 * The newest judged version when `version` is newer than every judged one (by the agent's layout
 * precision), else null: older versions are the ones the readers were built on and keep working.
 */
export function unjudged(version: string | null, j: JudgedVersions): string | null {
  if (!version || !parts(version)) return null;
  const newest = newestJudged(j);
  const cut = (v: string) => (j.sameLayout === 'minor' ? `${parts(v)![0]}.${parts(v)![1]}.0` : v);
  return compareVersions(cut(version), cut(newest)) > 0 ? newest : null;
}

/**
 * The one-line reason a session written by `version` is read only, or null. `npm run conformance --
 * --latest` sets REWIND_JUDGING=1 for the Rewind it runs: judging a release means writing its sessions.
 */
export function unjudgedReason(agent: string, version: string | null, j: JudgedVersions): string | null {
  if (process.env.REWIND_JUDGING === '1') return null;
  const newest = unjudged(version, j);
  return newest ? unjudgedSentence(agent, version!, newest) : null;
}

/** The newest `"version":"x.y.z"` among the JSON lines of `text` (Claude Code and Qwen Code stamp every line). */
export function newestVersionIn(text: string, key = 'version'): string | null {
  let best: string | null = null;
  for (const m of text.matchAll(new RegExp(`"${key}":"(\\d+\\.\\d+\\.\\d+[^"]*)"`, 'g'))) if (!best || compareVersions(m[1]!, best) > 0) best = m[1]!;
  return best;
}

/**
 * The newest CLI version a JSONL transcript records, from its first and last 256 KB: a session
 * continued by a newer CLI has that version on its last lines, and a 1 GiB file is not read whole.
 */
export async function newestVersionOfFile(path: string, window = 256 * 1024, key = 'version'): Promise<string | null> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    const read = async (at: number, len: number) => {
      const buf = Buffer.alloc(len);
      const { bytesRead } = await fh.read(buf, 0, len, at);
      return buf.subarray(0, bytesRead).toString('utf8');
    };
    const head = await read(0, Math.min(size, window));
    const tail = size > window ? await read(Math.max(window, size - window), Math.min(window, size - window)) : '';
    const versions = [newestVersionIn(head, key), newestVersionIn(tail, key)].filter((v): v is string => v !== null);
    return versions.length ? versions.reduce((a, b) => (compareVersions(a, b) >= 0 ? a : b)) : null;
  } finally {
    await fh.close();
  }
}

/**
 * Why a transcript stamped with its CLI's version on every line is read only (written by a release
 * newer than every judged one), else null; a file that cannot be read is left to the writer to report.
 */
export async function transcriptReadOnlyReason(agent: string, path: string, j: JudgedVersions, key = 'version'): Promise<string | null> {
  const version = await newestVersionOfFile(path, undefined, key).catch(() => null);
  const reason = unjudgedReason(agent, version, j);
  return reason ? `This ${agent} session is read only: ${reason}` : null;
}

/** Refuses a rewind of a transcript `transcriptReadOnlyReason` names read only, before anything is read further or written. */
export async function refuseUnjudged(agent: string, path: string, j: JudgedVersions, key = 'version'): Promise<void> {
  const reason = await transcriptReadOnlyReason(agent, path, j, key);
  if (reason) throw new RewindError('UNSUPPORTED', reason);
}
