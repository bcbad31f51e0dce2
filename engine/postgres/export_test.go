package postgres

// LockKey exposes the advisory lock key derivation.
var LockKey = lockKey

// SourceType exposes the source column type mapping.
var SourceType = sourceType
