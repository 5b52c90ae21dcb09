import { z } from 'zod';

/** `<project>/.agent/rewind/session.json`: written by our hooks, read by the CLI and the app. */
export const SessionPointerSchema = z.object({
  transcript_path: z.string().min(1),
  session_id: z.string().optional(),
  agent: z.string().optional(),
  cwd: z.string().optional(),
  updated_at: z.string().optional(),
});
export type SessionPointer = z.infer<typeof SessionPointerSchema>;
