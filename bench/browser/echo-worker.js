// The plain postMessage pool's worker: runs the no-op and answers with the task id.
self.onmessage = (e) => { self.postMessage(e.data); };
