package postgres

// LockKey exposes the advisory lock key derivation.
var LockKey = lockKey
