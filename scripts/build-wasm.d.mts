export const ASC_ARGS: string[];
export function generate(): Promise<string>;
