/* mysql_types.h — MySQL column type codes as they appear in TABLE_MAP
 * events (enum_field_types in MySQL's include/field_types.h) and the
 * binlog event type numbers (Log_event_type in binlog_event.h).
 *
 * Owns: constants only.
 */
#ifndef CDCH_MYSQL_TYPES_H
#define CDCH_MYSQL_TYPES_H

enum cdch_field_type {
    CDCH_T_DECIMAL = 0, /* old, pre-5.0 */
    CDCH_T_TINY = 1,
    CDCH_T_SHORT = 2,
    CDCH_T_LONG = 3,
    CDCH_T_FLOAT = 4,
    CDCH_T_DOUBLE = 5,
    CDCH_T_NULL = 6,
    CDCH_T_TIMESTAMP = 7,
    CDCH_T_LONGLONG = 8,
    CDCH_T_INT24 = 9,
    CDCH_T_DATE = 10,
    CDCH_T_TIME = 11,
    CDCH_T_DATETIME = 12,
    CDCH_T_YEAR = 13,
    CDCH_T_NEWDATE = 14,
    CDCH_T_VARCHAR = 15,
    CDCH_T_BIT = 16,
    CDCH_T_TIMESTAMP2 = 17,
    CDCH_T_DATETIME2 = 18,
    CDCH_T_TIME2 = 19,
    CDCH_T_TYPED_ARRAY = 20,
    CDCH_T_VECTOR = 242,
    CDCH_T_INVALID = 243,
    CDCH_T_BOOL = 244,
    CDCH_T_JSON = 245,
    CDCH_T_NEWDECIMAL = 246,
    CDCH_T_ENUM = 247,
    CDCH_T_SET = 248,
    CDCH_T_TINY_BLOB = 249,
    CDCH_T_MEDIUM_BLOB = 250,
    CDCH_T_LONG_BLOB = 251,
    CDCH_T_BLOB = 252,
    CDCH_T_VAR_STRING = 253,
    CDCH_T_STRING = 254,
    CDCH_T_GEOMETRY = 255,
};

/* Name as mysqlbinlog prints it in its "TYPE meta=..." comments. */
const char *cdch_field_type_name(int type);

enum cdch_event_type {
    CDCH_EV_UNKNOWN = 0,
    CDCH_EV_START_V3 = 1,
    CDCH_EV_QUERY = 2,
    CDCH_EV_STOP = 3,
    CDCH_EV_ROTATE = 4,
    CDCH_EV_INTVAR = 5,
    CDCH_EV_SLAVE = 7,
    CDCH_EV_APPEND_BLOCK = 9,
    CDCH_EV_DELETE_FILE = 11,
    CDCH_EV_RAND = 13,
    CDCH_EV_USER_VAR = 14,
    CDCH_EV_FORMAT_DESCRIPTION = 15,
    CDCH_EV_XID = 16,
    CDCH_EV_BEGIN_LOAD_QUERY = 17,
    CDCH_EV_EXECUTE_LOAD_QUERY = 18,
    CDCH_EV_TABLE_MAP = 19,
    CDCH_EV_WRITE_ROWS_V1 = 23,
    CDCH_EV_UPDATE_ROWS_V1 = 24,
    CDCH_EV_DELETE_ROWS_V1 = 25,
    CDCH_EV_INCIDENT = 26,
    CDCH_EV_HEARTBEAT = 27,
    CDCH_EV_IGNORABLE = 28,
    CDCH_EV_ROWS_QUERY = 29,
    CDCH_EV_WRITE_ROWS = 30,
    CDCH_EV_UPDATE_ROWS = 31,
    CDCH_EV_DELETE_ROWS = 32,
    CDCH_EV_GTID = 33,
    CDCH_EV_ANONYMOUS_GTID = 34,
    CDCH_EV_PREVIOUS_GTIDS = 35,
    CDCH_EV_TRANSACTION_CONTEXT = 36,
    CDCH_EV_VIEW_CHANGE = 37,
    CDCH_EV_XA_PREPARE = 38,
    CDCH_EV_PARTIAL_UPDATE_ROWS = 39,
    CDCH_EV_TRANSACTION_PAYLOAD = 40,
    CDCH_EV_HEARTBEAT_V2 = 41,
    CDCH_EV_GTID_TAGGED = 42,
};

/* Name as mysqlbinlog / SHOW BINLOG EVENTS print it ("Write_rows", ...);
 * "Unknown" for numbers we do not know. */
const char *cdch_event_type_name(int type);

#endif
