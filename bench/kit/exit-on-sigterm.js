// Preloaded (node --require) into the API when bench/api/run.js is given --cpu-prof: Nest's shutdown
// hook re-raises SIGTERM, and a process killed by a signal never writes its --cpu-prof file.
// Registered before Nest's listener, this exits normally first.
'use strict';

process.once('SIGTERM', () => process.exit(0));
