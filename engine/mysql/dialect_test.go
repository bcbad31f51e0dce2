package mysql

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
)

// The ledger's upsert: MariaDB (and MySQL before 8.0.19) name the new row's
// values with VALUES(), later MySQL with a row alias; which one is read
// from the server's version at open.
func TestUpsertSpellings(t *testing.T) {
	tbl := engine.Table{Name: "idem_runs"}
	cols, key := []string{"job", "run_id", "seq"}, []string{"job", "run_id"}
	require.Equal(t, `INSERT INTO "idem_runs" ("job", "run_id", "seq") VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE "seq" = VALUES("seq")`,
		Dialect{}.Upsert(tbl, cols, key))
	require.Equal(t, `INSERT INTO "idem_runs" ("job", "run_id", "seq") VALUES (?, ?, ?) AS "new" ON DUPLICATE KEY UPDATE "seq" = "new"."seq"`,
		Dialect{RowAlias: true}.Upsert(tbl, cols, key))
	for version, want := range map[string]bool{
		"10.11.19-MariaDB-0+deb12u1": false,
		"11.4.2-MariaDB":             false,
		"8.0.18":                     false,
		"8.0.19":                     true,
		"8.4.3":                      true,
		"9.1.0":                      true,
		"5.7.44-log":                 false,
	} {
		require.Equal(t, want, rowAlias(version), version)
	}
}

// The partition checksum: CRC-32 and CRC-32C where the server has
// CRC32C() (MariaDB 10.8 and later), tagged so that a ledger's older
// checksums are compared with MD5's; MD5's, untagged, elsewhere.
func TestChecksumByVersion(t *testing.T) {
	for version, want := range map[string]bool{
		"10.11.19-MariaDB-0+deb12u1": true,
		"10.8.1-MariaDB":             true,
		"11.4.2-MariaDB":             true,
		"10.6.20-MariaDB-log":        false,
		"8.0.36":                     false,
		"8.4.3":                      false,
		"5.7.44-log":                 false,
	} {
		d := &DB{version: version}
		v, versioned := d.SQL().Check.(engine.ChecksumVersioner)
		require.Equal(t, want, versioned, version)
		require.Equal(t, want, hasCRC32C(version), version)
		q := d.SQL().Check.Checksum(`"t"`, []engine.Column{{Name: "a", Type: "BIGINT"}}, "")
		require.Equal(t, want, strings.Contains(q, "crc32c("), q)
		require.Equal(t, !want, strings.Contains(q, "md5("), q)
		if versioned {
			require.Equal(t, "v2:", v.ChecksumTag())
			require.Contains(t, v.LegacyChecksum(`"t"`, []engine.Column{{Name: "a", Type: "BIGINT"}}, ""), "md5(")
		}
	}
}

// Tables idem creates compare text bytewise and without padding, in the
// spelling each server has: MariaDB's utf8mb4_nopad_bin, MySQL 8's
// utf8mb4_0900_bin; MySQL before 8.0.19 gets utf8mb4_bin (PAD SPACE, as
// docs/engines.md says).
func TestCollationByServer(t *testing.T) {
	for version, want := range map[string]string{
		"10.11.19-MariaDB-0+deb12u1": "utf8mb4_nopad_bin",
		"10.5.2-MariaDB":             "utf8mb4_nopad_bin",
		"8.0.19":                     "utf8mb4_0900_bin",
		"8.4.3":                      "utf8mb4_0900_bin",
		"5.7.44-log":                 "utf8mb4_bin",
	} {
		d := &DB{version: version}
		dl := d.dialect()
		require.Equal(t, want, dl.Collate(), version)
		tbl := engine.Table{Schema: "s", Name: "t"}
		create := strings.Join(dl.CreateTableFrom(tbl, "idem_stage", ""), ";\n")
		require.Contains(t, create, "CREATE TABLE IF NOT EXISTS \"s\".\"t\" DEFAULT CHARSET=utf8mb4 COLLATE="+want+" AS SELECT", version)
		require.Contains(t, create, "'LONGTEXT COLLATE "+want+"'", version)
		require.Contains(t, dl.CreateTable(engine.Table{Name: "idem_runs"}, engine.TableDef{Key: []string{"job"}}), "COLLATE="+want, version)
	}
}

// What a collation ignores, read from its name, and the ALTER that makes
// a column bytewise.
func TestCollationIgnores(t *testing.T) {
	d := Dialect{}
	for collation, want := range map[string]string{
		"utf8mb4_general_ci":          "case, accents and trailing spaces",
		"utf8mb4_unicode_ci":          "case, accents and trailing spaces",
		"utf8mb4_unicode_nopad_ci":    "case and accents",
		"utf8mb4_0900_ai_ci":          "case and accents",
		"utf8mb4_0900_as_ci":          "case",
		"utf8mb4_0900_as_cs":          "differences its language's rules hold equal",
		"latin1_swedish_ci":           "case, accents and trailing spaces",
		"utf8mb4_bin":                 "trailing spaces",
		"latin1_bin":                  "trailing spaces",
		"utf8mb4_nopad_bin":           "",
		"utf8mb4_0900_bin":            "",
		"binary":                      "",
		"utf8mb4_uca1400_nopad_as_cs": "differences its language's rules hold equal",
	} {
		require.Equal(t, want, d.Ignores(collation), collation)
	}
	tbl := engine.Table{Schema: "s`x", Name: "t"}
	require.Equal(t, "ALTER TABLE `s``x`.`t` MODIFY `c` varchar(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL",
		d.BytewiseDDL(tbl, "c", "utf8mb4", "varchar(8)", false))
	require.Equal(t, "ALTER TABLE `t` MODIFY `c` text CHARACTER SET latin1 COLLATE latin1_bin",
		d.BytewiseDDL(engine.Table{Name: "t"}, "c", "latin1", "text", true))
}
