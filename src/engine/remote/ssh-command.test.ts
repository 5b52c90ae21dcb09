import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { compatible, shellQuote, sshArgv, sshProgram, sshReason } from './ssh-command.js';

describe('the ssh command line', () => {
  it.skipIf(process.platform === 'win32')('quotes every word so the remote shell gives it back unchanged', () => {
    const words = ['plain', 'two words', "it's", '$HOME', '`id`', 'a"b', 'x;rm -rf /', '#n', '', 'ünï', '*', '\\', '\n'];
    const echoed = execFileSync('sh', ['-c', `printf '%s\\0' ${words.map(shellQuote).join(' ')}`]).toString('utf8');
    expect(echoed.split('\0').slice(0, -1)).toEqual(words);
  });

  it('never lets ssh ask (BatchMode) and ends its options before the target', () => {
    const argv = sshArgv({}, { target: '-oProxyCommand=evil', remoteArgv: ['rewind-app', 'sessions', '--json'] });
    expect(argv.slice(0, 4)).toEqual(['ssh', '-T', '-o', 'BatchMode=yes']);
    expect(argv.slice(-3)).toEqual(['--', '-oProxyCommand=evil', 'rewind-app sessions --json']);
    expect(argv.join(' ')).not.toMatch(/StrictHostKeyChecking/);
  });

  it('takes REWIND_SSH as a program with its own flags, a quoted path included', () => {
    expect(sshProgram({ REWIND_SSH: 'ssh -F /tmp/cfg' })).toEqual(['ssh', '-F', '/tmp/cfg']);
    expect(sshProgram({ REWIND_SSH: '"C:\\Program Files\\OpenSSH\\ssh.exe" -v' })).toEqual(['C:\\Program Files\\OpenSSH\\ssh.exe', '-v']);
    expect(sshProgram({})).toEqual(['ssh']);
  });

  it("says ssh's reason in one line", () => {
    const banner = '@@@@@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n@@@@@@@@@@@\nIT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!\nHost key verification failed.\n';
    expect(sshReason(banner)).toMatch(/^the host key has changed/);
    expect(sshReason('Host key verification failed.\n')).toMatch(/^Host key verification failed/);
    expect(sshReason('user@127.0.0.1: Permission denied (publickey).\r\n')).toBe('user@127.0.0.1: Permission denied (publickey)');
    expect(sshReason('ssh: connect to host 10.0.0.1 port 22: Connection refused\n')).toBe('ssh: connect to host 10.0.0.1 port 22: Connection refused');
  });

  it('calls versions compatible when major and minor agree', () => {
    expect(compatible('0.1.0', '0.1.7')).toBe(true);
    expect(compatible('0.1.0', '0.2.0')).toBe(false);
    expect(compatible('1.2.3', '2.2.3')).toBe(false);
    expect(compatible('dev', '0.9.0')).toBe(true);
    expect(compatible('0.1.0', 'garbage')).toBe(false);
  });
});
