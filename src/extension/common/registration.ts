// How a room adds to VS Code: what it registers is disposed with the extension, and its commands
// take the arguments their ids declare (commandIds.ts), so a handler and its callers agree.
import * as vscode from 'vscode';
import type { CommandArgs, CommandId } from './commandIds';

/** Keeps a disposable until the extension goes, and hands it back. */
export function keeper(context: vscode.ExtensionContext): <T extends vscode.Disposable>(d: T) => T {
  return (d) => {
    context.subscriptions.push(d);
    return d;
  };
}

export type CommandRegistrar = <C extends CommandId>(id: C, fn: (...args: CommandArgs[C]) => unknown) => void;

/** Registers commands by their typed ids, each disposed with the extension. */
export function commandRegistrar(context: vscode.ExtensionContext): CommandRegistrar {
  return <C extends CommandId>(id: C, fn: (...args: CommandArgs[C]) => unknown): void => {
    context.subscriptions.push(
      vscode.commands.registerCommand(id, (...args: unknown[]) => fn(...(args as CommandArgs[C]))),
    );
  };
}
