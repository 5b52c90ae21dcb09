import { z } from 'zod';
import { ErrorPayloadSchema } from './contract.js';

/**
 * `rewind-app serve --stdio`: the same contract as the other doors, one JSON object a line over a
 * pipe (the remote end of the user's ssh). Nothing listens on a port on either side. The server
 * says hello first; then each call gets one result, and events come whenever the service has one.
 */
export const REMOTE_PROTOCOL = 1;

/** Largest line either side accepts: a timeline of a huge session fits, a runaway peer does not. */
export const MAX_FRAME_BYTES = 256 * 1024 * 1024;

export const HelloFrameSchema = z.object({ t: z.literal('hello'), protocol: z.number().int(), version: z.string(), hostname: z.string().optional() });
export const CallFrameSchema = z.object({ t: z.literal('call'), id: z.number().int().nonnegative(), op: z.string().min(1).max(64), payload: z.unknown() });
export const ResultFrameSchema = z.object({
  t: z.literal('result'),
  id: z.number().int().nonnegative(),
  result: z.union([z.object({ ok: z.literal(true), value: z.unknown() }), z.object({ ok: z.literal(false), error: ErrorPayloadSchema })]),
});
/** Events are validated by the receiver against the contract's EventSchema. */
export const EventFrameSchema = z.object({ t: z.literal('event'), event: z.unknown() });

export const ServerFrameSchema = z.discriminatedUnion('t', [HelloFrameSchema, ResultFrameSchema, EventFrameSchema]);
export type ServerFrame = z.infer<typeof ServerFrameSchema>;
export type CallFrame = z.infer<typeof CallFrameSchema>;
