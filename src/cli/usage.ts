export const USAGE = `rewind-app: fork, rewrite and restore AI coding agent sessions

Usage:
  rewind-app [--demo]                open the app (browser mode when Electron cannot start)
  rewind-app serve [--port N] [--host 127.0.0.1] [--demo]
                                     browser mode: prints a URL with a one-time token
  rewind-app sessions [--project DIR] [--json]
  rewind-app search <words or "a phrase"> [--json] [--project DIR] [--agent claude|codex|droid|qwen|gemini|copilot] [--limit N]
                                     every prompt of every session (case and accents ignored),
                                     from an index kept in the cache folder; exit 3 when none matches
  rewind-app timeline [SESSION] [--json]
                                     SESSION: id, id prefix or transcript path
                                     (default: newest session of this directory)
  rewind-app back [n | --to <prompt uuid | #n>] [--in-place] [--both] [--copy]
                  [--dry-run] [--json] [--transcript PATH] [--project DIR] [--force]
                                     n: prompts back along the live path (default 1);
                                     --to: cut before that prompt, live or on an
                                     abandoned branch (#n: the n-th live prompt)
  rewind-app undo [ID] [--dry-run] [--force] [--project DIR] [--json]
                                     ID: a history entry (default: the newest action)
  rewind-app redo [--dry-run] [--force] [--project DIR] [--json]
  rewind-app history [--project DIR] [--json]
                                     every fork, rewrite, restore, revert, undo and redo,
                                     and whether each can still be undone
  rewind-app revert <prompt id> [--dry-run] [--json] [--force] [--project DIR]
                    [--take current|before|markers | --take PATH=CHOICE ...]
                                     take one prompt's code changes back, keep later ones;
                                     overlapping changes are conflicts (exit 6) until --take
  rewind-app checkpoint [--label L] [--project DIR] [--json]
  rewind-app checkpoints [--project DIR] [--json]
  rewind-app restore <checkpoint id | prompt uuid | @n> [--dry-run] [--json]
                     [--source rewind|claude] [--force] [--project DIR]
  rewind-app compare <a> <b> [--json] [--project DIR]
                                     two prompts ([SESSION:]#n or prompt uuid) or two
                                     sessions side by side from their common ancestor,
                                     with the code each side ended with
  rewind-app export [SESSION] [--branch PROMPT] [--format md|html] [--out FILE]
                    [--no-redact] [--force]
                                     Markdown or one self-contained HTML file;
                                     secrets are redacted unless --no-redact
  rewind-app remote add <ssh target> [--name N] | remote list | remote remove <name>
                                     hosts reached through your own ssh (they need
                                     rewind-app installed: npm i -g rewind-app)
  rewind-app <command> --host NAME   sessions, search, timeline, back, restore, undo,
                                     checkpoint(s), history run on that host, on its files
  rewind-app serve --stdio           the service over stdin/stdout (what a host runs for the window)
  rewind-app mcp [--allow-writes]    an MCP server on stdio (docs/mcp.md): search, timeline,
                                     turn, previews; rewind, restore, undo with --allow-writes
  rewind-app mcp install|uninstall --agent claude|codex|qwen|gemini|droid|copilot|all
                 [--scope user|project] [--allow-writes] [--dry-run] [--json]
  rewind-app hooks install|uninstall|status [--agent claude|codex|droid|qwen|gemini|copilot|all]
                    [--scope user|project|local] [--trust] [--dry-run] [--json]
                                     each agent's own hook config (merged, backed up);
                                     --trust records Codex's trust for Rewind's hooks
  rewind-app hook [--agent ID]       (run by the agent's hooks: JSON on stdin, prints nothing)

When the app is running, back, restore, revert, checkpoint, undo and redo are performed by it.

Options:
  --claude-dir DIR   Claude config dir (default: $CLAUDE_CONFIG_DIR or ~/.claude)
                     Codex CLI sessions (listed, shown and rewound) come from
                     $CODEX_HOME or ~/.codex; Factory Droid's from
                     $FACTORY_HOME_OVERRIDE/.factory or ~/.factory, Qwen Code's from
                     $QWEN_RUNTIME_DIR, $QWEN_HOME or ~/.qwen, Gemini
                     CLI's from $GEMINI_CLI_HOME/.gemini or ~/.gemini, GitHub
                     Copilot CLI's from $COPILOT_HOME or ~/.copilot (all rewound)
  -h, --help         this help
  -v, --version      version

Exit codes: 0 ok, 1 error, 2 usage, 3 fewer prompts than asked,
            4 no transcript found, 5 transcript changed or live, 6 conflicts`;
