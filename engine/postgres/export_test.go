package postgres

// LockKey exposes the advisory lock key derivation.
var LockKey = lockKey

// SourceType exposes the source column type mapping.
var SourceType = sourceType

// AppendNumeric exposes the decoding of a source's binary numeric.
var AppendNumeric = appendNumeric
