import { z } from 'zod';
import type { OperationName } from './operations.js';
import { SessionSummarySchema, TimelineSchema } from './session-schema.js';

/** Every request and response that crosses a process boundary, validated where it arrives. */
export const CONTRACT = {
  listSessions: {
    request: z.object({ project: z.string().min(1).optional() }).strict(),
    response: z.object({ root: z.string(), sessions: z.array(SessionSummarySchema) }),
  },
  getTimeline: {
    request: z.object({ session: z.string().min(1) }).strict(),
    response: TimelineSchema,
  },
} as const satisfies Record<OperationName, { request: z.ZodType; response: z.ZodType }>;

export type RequestOf<K extends OperationName> = z.input<(typeof CONTRACT)[K]['request']>;
export type ResponseOf<K extends OperationName> = z.output<(typeof CONTRACT)[K]['response']>;

export const ErrorPayloadSchema = z.object({ code: z.string(), message: z.string() });
export type ErrorPayload = z.infer<typeof ErrorPayloadSchema>;

/** What every door returns: a value, or an error with a stable code (never a stack trace). */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ErrorPayload };

/** The API the renderer sees, one named method per operation. */
export type RewindApi = { [K in OperationName]: (request: RequestOf<K>) => Promise<Result<ResponseOf<K>>> };
