// Preloaded into a server under soak: answers "memory" on the IPC channel with
// process.memoryUsage(), so the bench can report heap as well as RSS. Does nothing otherwise.
if (process.send) {
  process.on('message', (message) => {
    if (message === 'memory') process.send(process.memoryUsage());
  });
  // The channel must not keep a stopped server alive.
  process.channel?.unref();
}
