package duckdb

var SourceType = sourceType
