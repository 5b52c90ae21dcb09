import { chatHistory, startChatApi } from './chat-api.js';
import type { ModelApi } from './suite.js';

/** The scripted Chat Completions server as a suite's model API. */
export async function chatModelApi(): Promise<ModelApi> {
  const api = await startChatApi();
  return { url: api.url, histories: () => api.requests.map(chatHistory), close: () => api.close() };
}
