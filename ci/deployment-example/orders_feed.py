# The orders team's in-house feed (ci/deployment-example.yaml): python-mysql-replication, rows
# printed one a line for the warehouse loader. Run by the harness as a `command:` with an adapter's
# environment (CDCH_HOST, CDCH_PORT, ...); judged by the differential oracle against its own rows
# on the uncompressed stream.
import os
import sys

from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent

conn = {"host": os.environ["CDCH_HOST"], "port": int(os.environ["CDCH_PORT"]),
        "user": os.environ["CDCH_USER"], "passwd": os.environ["CDCH_PASSWORD"]}
stream = BinLogStreamReader(connection_settings=conn, server_id=int(os.environ["CDCH_SERVER_ID"]),
                            log_file=os.environ["CDCH_START_FILE"], log_pos=int(os.environ["CDCH_START_POS"]),
                            resume_stream=True, blocking=True,
                            only_events=[WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent])
for event in stream:
    for row in event.rows:
        values = row.get("values", row.get("after_values"))
        print(type(event).__name__, f"{event.schema}.{event.table}", sorted(values.items()), flush=True)
    sys.stdout.flush()
