/**
 * An ssh failure in one sentence: what the user can act on, from the known ssh messages; the raw
 * output stays available beside it (the window shows it under a disclosure).
 */
const KNOWN: [RegExp, string][] = [
  [/Could not resolve hostname|Name or service not known|nodename nor servname/i, 'The host name could not be found: check the spelling or your ~/.ssh/config alias.'],
  [/Connection refused/i, 'The host refused the connection: is ssh running there, on that port?'],
  [/timed out|Network is unreachable|No route to host/i, 'The host could not be reached: check the network or VPN.'],
  [/Permission denied/i, 'ssh could not log in: check the user name and that your key is loaded (ssh-add).'],
  [/Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED/i, "The host's key is unknown or changed: connect once with ssh in a terminal to check and accept it."],
  [/rewind-app: (command )?not found|command not found|No such file or directory/i, 'rewind-app is not installed on the host: run npm i -g rewind-app there.'],
];

export function sshSummary(raw: string): { text: string; detail: string | null } {
  const t = raw.trim();
  for (const [re, text] of KNOWN) if (re.test(t)) return { text, detail: t };
  const first = t.split('\n').find((l) => l.trim()) ?? t;
  const short = first.length > 160 ? `${first.slice(0, 159)}…` : first;
  return { text: short, detail: short === t ? null : t };
}
