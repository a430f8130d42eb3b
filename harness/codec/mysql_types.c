#include "mysql_types.h"

const char *cdch_field_type_name(int type)
{
    switch (type) {
    case CDCH_T_DECIMAL: return "DECIMAL";
    case CDCH_T_TINY: return "TINYINT";
    case CDCH_T_SHORT: return "SHORTINT";
    case CDCH_T_LONG: return "INT";
    case CDCH_T_FLOAT: return "FLOAT";
    case CDCH_T_DOUBLE: return "DOUBLE";
    case CDCH_T_NULL: return "NULL";
    case CDCH_T_TIMESTAMP: return "TIMESTAMP";
    case CDCH_T_LONGLONG: return "LONGINT";
    case CDCH_T_INT24: return "MEDIUMINT";
    case CDCH_T_DATE: return "DATE";
    case CDCH_T_TIME: return "TIME";
    case CDCH_T_DATETIME: return "DATETIME";
    case CDCH_T_YEAR: return "YEAR";
    case CDCH_T_NEWDATE: return "NEWDATE";
    case CDCH_T_VARCHAR: return "VARSTRING";
    case CDCH_T_BIT: return "BIT";
    case CDCH_T_TIMESTAMP2: return "TIMESTAMP";
    case CDCH_T_DATETIME2: return "DATETIME";
    case CDCH_T_TIME2: return "TIME";
    case CDCH_T_VECTOR: return "VECTOR";
    case CDCH_T_JSON: return "JSON";
    case CDCH_T_NEWDECIMAL: return "DECIMAL";
    case CDCH_T_ENUM: return "ENUM";
    case CDCH_T_SET: return "SET";
    case CDCH_T_TINY_BLOB: return "TINYBLOB";
    case CDCH_T_MEDIUM_BLOB: return "MEDIUMBLOB";
    case CDCH_T_LONG_BLOB: return "LONGBLOB";
    case CDCH_T_BLOB: return "BLOB";
    case CDCH_T_VAR_STRING: return "VARSTRING";
    case CDCH_T_STRING: return "STRING";
    case CDCH_T_GEOMETRY: return "GEOMETRY";
    default: return "UNKNOWN";
    }
}

const char *cdch_event_type_name(int type)
{
    switch (type) {
    case CDCH_EV_START_V3: return "Start_v3";
    case CDCH_EV_QUERY: return "Query";
    case CDCH_EV_STOP: return "Stop";
    case CDCH_EV_ROTATE: return "Rotate";
    case CDCH_EV_INTVAR: return "Intvar";
    case CDCH_EV_RAND: return "RAND";
    case CDCH_EV_USER_VAR: return "User var";
    case CDCH_EV_FORMAT_DESCRIPTION: return "Format_desc";
    case CDCH_EV_XID: return "Xid";
    case CDCH_EV_BEGIN_LOAD_QUERY: return "Begin_load_query";
    case CDCH_EV_EXECUTE_LOAD_QUERY: return "Execute_load_query";
    case CDCH_EV_TABLE_MAP: return "Table_map";
    case CDCH_EV_WRITE_ROWS_V1: return "Write_rows_v1";
    case CDCH_EV_UPDATE_ROWS_V1: return "Update_rows_v1";
    case CDCH_EV_DELETE_ROWS_V1: return "Delete_rows_v1";
    case CDCH_EV_INCIDENT: return "Incident";
    case CDCH_EV_HEARTBEAT: return "Heartbeat";
    case CDCH_EV_IGNORABLE: return "Ignorable";
    case CDCH_EV_ROWS_QUERY: return "Rows_query";
    case CDCH_EV_WRITE_ROWS: return "Write_rows";
    case CDCH_EV_UPDATE_ROWS: return "Update_rows";
    case CDCH_EV_DELETE_ROWS: return "Delete_rows";
    case CDCH_EV_GTID: return "Gtid";
    case CDCH_EV_ANONYMOUS_GTID: return "Anonymous_Gtid";
    case CDCH_EV_PREVIOUS_GTIDS: return "Previous_gtids";
    case CDCH_EV_TRANSACTION_CONTEXT: return "Transaction_context";
    case CDCH_EV_VIEW_CHANGE: return "View_change";
    case CDCH_EV_XA_PREPARE: return "XA_prepare";
    case CDCH_EV_PARTIAL_UPDATE_ROWS: return "Update_rows_partial";
    case CDCH_EV_TRANSACTION_PAYLOAD: return "Transaction_payload";
    case CDCH_EV_HEARTBEAT_V2: return "Heartbeat_v2";
    case CDCH_EV_GTID_TAGGED: return "Gtid_tagged_log";
    default: return "Unknown";
    }
}
