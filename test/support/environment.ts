/**
 * Sets variables for the apps a suite starts (each app reads its configuration when created) and
 * gives the previous values back afterwards, so later suites see the default test environment.
 */
export function overrideEnvironment(changes: Record<string, string>) {
  const previous = Object.fromEntries(
    Object.keys(changes).map((name) => [name, process.env[name]]),
  );
  Object.assign(process.env, changes);
  return {
    restore(): void {
      for (const [name, value] of Object.entries(previous)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    },
  };
}
