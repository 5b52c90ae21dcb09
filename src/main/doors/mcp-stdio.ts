import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Readable, Writable } from 'node:stream';

/** The largest message read (one line of JSON); a bigger one is answered with an error and skipped. */
export const MAX_MCP_MESSAGE_BYTES = 10 * 1024 * 1024;
/** How much of an oversized message is kept to find its request id in. */
const HEAD_BYTES = 64 * 1024;
const INVALID_REQUEST = -32600;
const PARSE_ERROR = -32700;

/**
 * The MCP server's stdio transport: one JSON-RPC message per line. Unlike the SDK's, whose buffer
 * limit closes the whole connection (the server then exited 0 with no answer and no word), a
 * message over the limit is answered with an error (under its request id when the first 64 kB
 * name it), its bytes are dropped up to its newline, and the next message is read as usual.
 */
export class McpStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private parts: Buffer[] = [];
  private size = 0;
  /** Set while the rest of an oversized line is being dropped. */
  private skipping = false;
  private started = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly opts: { log: (line: string) => void; maxBytes?: number },
  ) {}

  private get max(): number {
    return this.opts.maxBytes ?? MAX_MCP_MESSAGE_BYTES;
  }

  private readonly onData = (chunk: Buffer) => {
    let at = 0;
    while (at < chunk.length) {
      const nl = chunk.indexOf(10, at);
      const part = chunk.subarray(at, nl === -1 ? chunk.length : nl);
      if (!this.skipping) {
        if (this.size + part.length > this.max) this.refuse(part);
        else {
          this.parts.push(part);
          this.size += part.length;
        }
      }
      if (nl === -1) return;
      if (!this.skipping) this.line(Buffer.concat(this.parts, this.size));
      this.parts = [];
      this.size = 0;
      this.skipping = false;
      at = nl + 1;
    }
  };

  private readonly onError = (error: Error) => this.onerror?.(error);

  /** The line crossed the limit: answered now (a client that never sends the newline still hears), the rest dropped. */
  private refuse(part: Buffer): void {
    const head = Buffer.concat([...this.parts, part.subarray(0, HEAD_BYTES)]).subarray(0, HEAD_BYTES).toString('utf8');
    this.parts = [];
    this.size = 0;
    this.skipping = true;
    const id = requestIdIn(head);
    const limit = `${Math.round(this.max / 1024 / 1024)} MB`;
    this.opts.log(`rewind-app mcp: refused a message over ${limit}${id === null ? '' : ` (request ${JSON.stringify(id)})`}; still serving`);
    void this.answerError(id, INVALID_REQUEST, `message too large: over the ${limit} limit (${this.max} bytes); it was not read`);
  }

  private line(bytes: Buffer): void {
    const text = bytes.toString('utf8').replace(/\r$/, '');
    if (!text.trim()) return;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      // JSON-RPC: a message that cannot be parsed is answered with a parse error and id null.
      this.opts.log(`rewind-app mcp: refused a message that is not JSON (${(e as Error).message.slice(0, 120)})`);
      void this.answerError(null, PARSE_ERROR, 'not JSON');
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(json);
    } catch {
      // A request that is not one (a batch, a missing jsonrpc) is answered; a stray response or notification only logged.
      const request = typeof json === 'object' && json !== null && 'method' in json && 'id' in json;
      this.opts.log(`rewind-app mcp: refused a message that is not JSON-RPC${request ? '' : ' (not answered: not a request)'}`);
      if (request) void this.answerError(requestIdIn(text.slice(0, HEAD_BYTES)), INVALID_REQUEST, 'not a JSON-RPC 2.0 request');
      return;
    }
    this.onmessage?.(message);
  }

  private answerError(id: RequestId | null, code: number, message: string): Promise<void> {
    return this.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('McpStdioTransport already started');
    this.started = true;
    this.input.on('data', this.onData);
    this.input.on('error', this.onError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(serializeMessage(message));
  }

  private write(text: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(text)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    this.input.off('data', this.onData);
    this.input.off('error', this.onError);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.parts = [];
    this.size = 0;
    this.skipping = false;
    this.onclose?.();
  }
}

const STRING = /"(?:[^"\\]|\\.)*"/y;
const ID_VALUE = /\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")/y;
const COLON = /\s*:/y;

/**
 * The `id` member of the top-level object that `head` (the start of a JSON text, maybe cut) opens,
 * or null: keys are read at depth 1 only, so an `"id"` inside params is never taken for it.
 */
export function requestIdIn(head: string): RequestId | null {
  let depth = 0;
  for (let i = 0; i < head.length; i++) {
    const c = head[i];
    if (c === '"') {
      STRING.lastIndex = i;
      const s = STRING.exec(head);
      if (!s) return null;
      const end = i + s[0].length;
      if (depth === 1 && s[0] === '"id"') {
        ID_VALUE.lastIndex = end;
        const v = ID_VALUE.exec(head);
        if (v) return JSON.parse(v[1]!) as RequestId;
      }
      if (depth === 1) {
        COLON.lastIndex = end;
        // A key: the loop goes on at its value.
        if (COLON.exec(head)) {
          i = COLON.lastIndex - 1;
          continue;
        }
      }
      i = end - 1;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return null;
}
