import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/**
 * Replaces `file` so that after a crash it holds either the old or the new content, never a
 * mix: write a temporary file, fsync it, rename it over the target, fsync the directory (the
 * rename itself is only durable once the directory entry is on disk).
 */
export async function writeFileDurably(file: string, data: string, mode = 0o600): Promise<void> {
  const temporary = `${file}.tmp`;
  const handle = await fs.open(temporary, 'w', mode);
  try {
    await handle.writeFile(data, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(temporary, file);
  await syncDirectory(path.dirname(file));
}

/** Appends one line and fsyncs it before returning. */
export async function appendLineDurably(file: string, line: string, mode = 0o600): Promise<void> {
  const handle = await fs.open(file, 'a', mode);
  try {
    await handle.writeFile(`${line}\n`, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Removes `file` (if present) and makes the removal durable. */
export async function removeFileDurably(file: string): Promise<void> {
  await fs.rm(file, { force: true });
  await syncDirectory(path.dirname(file));
}

export async function syncDirectory(directory: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await fs.open(directory, 'r');
  } catch (error) {
    // Windows cannot open a directory as a file; its renames are durable without it.
    if (isErrnoCode(error, 'EISDIR') || isErrnoCode(error, 'EPERM')) return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    // Some file systems (and Android's FUSE storage) refuse fsync on a directory.
    if (!isErrnoCode(error, 'EINVAL') && !isErrnoCode(error, 'EBADF') && !isErrnoCode(error, 'EPERM')) throw error;
  } finally {
    await handle.close();
  }
}

export function isErrnoCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as NodeJS.ErrnoException).code === code;
}
