// A command used wrongly: main prints the message with the help and exits 2.
export class Usage extends Error {}
