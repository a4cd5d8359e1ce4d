// A task module whose initialisation throws (start-failure.test.mjs).
throw new Error('init failed: this module refuses to load');
