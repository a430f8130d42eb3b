package main

// Schema from CREATE TABLE statements (gomysql-decode -ddl).
//
// With binlog_row_metadata=MINIMAL (MySQL's default) a TABLE_MAP carries no
// column names and no ENUM/SET member names, so go-mysql can only report
// "@N" keys, ENUM indexes and SET bitmaps. A consumer that tracks DDL knows
// them from the CREATE TABLE statements in the stream (QUERY events), and so
// does gomysql-decode with -ddl: a small scanner (not a SQL parser) reads
// each CREATE TABLE's column names and ENUM/SET member lists. They are used
// only where the TABLE_MAP lacks them, only when the statement's column
// count equals the TABLE_MAP's, and ENUM/SET labels only for columns the
// TABLE_MAP types as ENUM/SET. ALTER TABLE is not followed.

import (
	"strings"
)

type ddlColumn struct {
	name   string
	kind   string // "enum", "set" or ""
	labels []string
}

type ddlSchema map[string][]ddlColumn // "db.table" -> columns

// skipSpaceComments skips blanks and /* */ comments (MySQL's /*!NNNNN ... */
// version comments are not unwrapped: their text is skipped too).
func skipSpaceComments(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r':
			i++
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return len(s)
			}
			i += 2 + end + 2
		default:
			return i
		}
	}
	return i
}

// ident reads an identifier (backquoted, or a bare word) at s[i:].
func ident(s string, i int) (name string, next int, quoted bool, ok bool) {
	if i >= len(s) {
		return "", i, false, false
	}
	if s[i] == '`' {
		var b strings.Builder
		j := i + 1
		for j < len(s) {
			if s[j] == '`' {
				if j+1 < len(s) && s[j+1] == '`' {
					b.WriteByte('`')
					j += 2
					continue
				}
				return b.String(), j + 1, true, true
			}
			b.WriteByte(s[j])
			j++
		}
		return "", j, true, false
	}
	j := i
	for j < len(s) {
		c := s[j]
		if c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 {
			j++
			continue
		}
		break
	}
	if j == i {
		return "", i, false, false
	}
	return s[i:j], j, false, true
}

// quotedString reads a '...' or "..." literal at s[i:] (doubled quotes and
// backslash escapes as MySQL reads them in the default SQL mode).
func quotedString(s string, i int) (string, int, bool) {
	if i >= len(s) || (s[i] != '\'' && s[i] != '"') {
		return "", i, false
	}
	q := s[i]
	var b strings.Builder
	j := i + 1
	for j < len(s) {
		c := s[j]
		switch {
		case c == q && j+1 < len(s) && s[j+1] == q:
			b.WriteByte(q)
			j += 2
		case c == q:
			return b.String(), j + 1, true
		case c == '\\' && j+1 < len(s):
			e := s[j+1]
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			case 'b':
				b.WriteByte('\b')
			case 'Z':
				b.WriteByte(26)
			default:
				b.WriteByte(e)
			}
			j += 2
		default:
			b.WriteByte(c)
			j++
		}
	}
	return "", j, false
}

// splitTopLevel splits the body of a parenthesised list at top-level commas;
// s[i] must be '('. Returns the parts and the index after the closing ')'.
func splitTopLevel(s string, i int) ([]string, int, bool) {
	depth := 0
	start := i + 1
	var parts []string
	for j := i; j < len(s); j++ {
		switch c := s[j]; c {
		case '\'', '"':
			_, end, ok := quotedString(s, j)
			if !ok {
				return nil, j, false
			}
			j = end - 1
		case '`':
			_, end, _, ok := ident(s, j)
			if !ok {
				return nil, j, false
			}
			j = end - 1
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				parts = append(parts, s[start:j])
				return parts, j + 1, true
			}
		case ',':
			if depth == 1 {
				parts = append(parts, s[start:j])
				start = j + 1
			}
		}
	}
	return nil, len(s), false
}

var nonColumn = map[string]bool{"PRIMARY": true, "KEY": true, "INDEX": true, "UNIQUE": true,
	"CONSTRAINT": true, "FOREIGN": true, "FULLTEXT": true, "SPATIAL": true, "CHECK": true}

func parseColumn(def string) (ddlColumn, bool) {
	i := skipSpaceComments(def, 0)
	name, i, quoted, ok := ident(def, i)
	if !ok || (!quoted && nonColumn[strings.ToUpper(name)]) {
		return ddlColumn{}, false
	}
	col := ddlColumn{name: name}
	i = skipSpaceComments(def, i)
	typ, j, _, ok := ident(def, i)
	if !ok {
		return col, true
	}
	kind := strings.ToLower(typ)
	if kind != "enum" && kind != "set" {
		return col, true
	}
	j = skipSpaceComments(def, j)
	if j >= len(def) || def[j] != '(' {
		return col, true
	}
	items, _, ok := splitTopLevel(def, j)
	if !ok {
		return col, true
	}
	labels := make([]string, 0, len(items))
	for _, it := range items {
		k := skipSpaceComments(it, 0)
		lab, _, ok := quotedString(it, k)
		if !ok {
			return col, true
		}
		// MySQL strips trailing spaces from ENUM/SET members.
		labels = append(labels, strings.TrimRight(lab, " "))
	}
	col.kind, col.labels = kind, labels
	return col, true
}

// learn reads a QUERY event's statement; CREATE TABLE adds (or replaces) a
// table, DROP TABLE forgets it.
func (sc ddlSchema) learn(curDB, q string) {
	i := skipSpaceComments(q, 0)
	word := func() string {
		w, next, _, ok := ident(q, i)
		if !ok {
			return ""
		}
		i = skipSpaceComments(q, next)
		return strings.ToUpper(w)
	}
	first := word()
	if first != "CREATE" && first != "DROP" {
		return
	}
	w := word()
	if w == "TEMPORARY" {
		w = word()
	}
	if w != "TABLE" {
		return
	}
	save := i
	if word() == "IF" {
		word() // NOT / EXISTS
		if first == "CREATE" {
			word() // EXISTS
		}
	} else {
		i = save
	}
	readName := func() (string, bool) {
		db := curDB
		n, next, _, ok := ident(q, i)
		if !ok {
			return "", false
		}
		i = next
		if i < len(q) && q[i] == '.' {
			t, next2, _, ok := ident(q, i+1)
			if !ok {
				return "", false
			}
			db, n, i = n, t, next2
		}
		i = skipSpaceComments(q, i)
		return db + "." + n, true
	}
	if first == "DROP" {
		for {
			key, ok := readName()
			if !ok {
				return
			}
			delete(sc, key)
			if i >= len(q) || q[i] != ',' {
				return
			}
			i = skipSpaceComments(q, i+1)
		}
	}
	key, ok := readName()
	if !ok || i >= len(q) || q[i] != '(' {
		return // CREATE TABLE ... LIKE / AS SELECT: columns unknown
	}
	parts, _, ok := splitTopLevel(q, i)
	if !ok {
		return
	}
	var cols []ddlColumn
	for _, p := range parts {
		if c, ok := parseColumn(p); ok {
			cols = append(cols, c)
		}
	}
	sc[key] = cols
}
