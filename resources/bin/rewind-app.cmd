@echo off
rem `rewind-app` from an installed Rewind: the app's own Electron runs the CLI as plain Node.
rem Add this folder (...\Rewind\resources\bin) to PATH to use it from any terminal.
setlocal
set ELECTRON_RUN_AS_NODE=1
"%~dp0..\..\Rewind.exe" "%~dp0..\app\out\cli\rewind-app.mjs" %*
