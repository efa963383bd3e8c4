// For TypeScript older than 5.2 (Debian's tsc 4.8): the generated classes declare
// [Symbol.dispose]() (explicit resource management, `using`), whose symbol those
// versions' libraries do not have yet. Newer TypeScript has it in lib.esnext.
interface SymbolConstructor {
  readonly dispose: unique symbol;
}
