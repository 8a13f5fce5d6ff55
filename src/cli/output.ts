// What a command prints: to stdout (results) and stderr (progress, problems). A reader that went
// away (`braid status | head -1`) ends what is printed, not the command.
export const out = (s: string) => {
  if (!process.stdout.destroyed) process.stdout.write(s);
};
export const err = (s: string) => {
  if (!process.stderr.destroyed) process.stderr.write(s);
};
