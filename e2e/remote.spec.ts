import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { SSHD, startSshd, type TestSshd } from '../test/remote/sshd.js';
import { CLI, serve, type Served } from './server.js';

/**
 * Browser mode with one remote host: a real sshd on 127.0.0.1 whose "remote" is a temp HOME with
 * one Claude session, added from the window; its sessions are listed under its own heading and
 * opened like local ones; a dropped connection is one line with a Reconnect button.
 */
test.describe('a remote host in the window', () => {
  test.skip(process.platform !== 'linux' || !SSHD, 'needs OpenSSH\'s sshd (.ci/run installs it on Debian)');
  let sshd: TestSshd;
  let app: Served;

  test.beforeAll(async () => {
    sshd = await startSshd({ remoteBin: CLI, remoteEnv: { REWIND_NO_FORWARD: '1' } });
    const project = join(sshd.remoteHome, 'shop');
    await mkdir(project);
    const dir = join(sshd.remoteHome, '.claude', 'projects', project.replace(/[/.]/g, '-'));
    await mkdir(dir, { recursive: true });
    const fixture = join(import.meta.dirname, '..', 'test', 'fixtures', 'claude-code-2.1.330', 'home', '.claude', 'projects', '-home-dev-projects-linear', '2ea8980a-26fe-4928-aab5-4ebf6074b664.jsonl');
    const file = join(dir, '2ea8980a-26fe-4928-aab5-4ebf6074b664.jsonl');
    await writeFile(file, (await readFile(fixture, 'utf8')).replaceAll('/home/dev/projects/linear', project));
    const past = new Date(Date.now() - 3600_000);
    await utimes(file, past, past);
    app = await serve({ env: { REWIND_SSH: sshd.sshWrapper } });
  });

  test.afterAll(async () => {
    await app?.stop();
    await sshd?.stop();
    if (app) await rm(join(app.env.HOME!), { recursive: true, force: true });
  });

  test('add a host, open its session, lose the connection and reconnect', async ({ page }) => {
    await page.goto(app.url);
    await page.getByRole('button', { name: '+ Remote host' }).click();
    await page.getByLabel('SSH target').fill(sshd.alias);
    await page.getByLabel('Name (optional)').fill('box');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const heading = page.locator('.wg-host[data-host="box"]');
    await expect(heading).toContainText('1 session', { timeout: 20_000 });
    await expect(page.locator('h2.wg-host')).toHaveText('This machine');
    // The host's session, opened like a local one: its prompts come from over there.
    await page.locator('.wg-session').last().click();
    await expect(page.getByText('WRITE a.txt version two').first()).toBeVisible();
    // The header names the folder on its host.
    await expect(page.getByText(`box:${join(sshd.remoteHome, 'shop')}`)).toBeVisible();

    // A changed host key, then the connection dropped: one line on the host's group, never a prompt to accept it.
    const good = await readFile(sshd.knownHosts, 'utf8');
    await writeFile(sshd.knownHosts, good.replace(/ssh-ed25519 \S+/, sshd.otherHostKeyPub));
    execFileSync('pkill', ['-f', `${sshd.alias} rewind-app serve --stdio`]);
    await expect(heading.locator('.wg-host-why')).toContainText('host key has changed', { timeout: 20_000 });
    await writeFile(sshd.knownHosts, good);
    await heading.getByRole('button', { name: 'Reconnect' }).click();
    await expect(heading).toContainText('1 session', { timeout: 20_000 });
    expect(existsSync(join(app.env.HOME!, '.config', 'rewind', 'remotes.json'))).toBe(true);
  });
});
