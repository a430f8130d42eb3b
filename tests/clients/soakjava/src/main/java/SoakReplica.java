import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import com.github.shyiko.mysql.binlog.io.ByteArrayInputStream;

import java.io.IOException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;

/**
 * N mysql-binlog-connector-java replicas of `cdcharness serve`, each dumping the whole stream
 * (non-blocking: from FILE:4 to the EOF) again and again until the deadline, for the server soak
 * (scripts/soak-server.sh). Every event the library reads is captured as received (a deserializer
 * that reads the event's bytes first, then lets the library decode them) and hashed; each dump
 * prints one line:
 *   PASS java[i] dump K: EVENTS events, BYTES bytes
 *   FAIL java[i] dump K: why
 * A dump passes when the SHA-256 of its non-heartbeat events, concatenated, and their count are
 * the expected ones (tests/clients/soak_replicas.py computes them from the generated stream).
 *
 *   java SoakReplica PORT FIRST_FILE THREADS SECONDS SHA256 EVENTS SERVER_ID_BASE
 */
public class SoakReplica {
    /** Reads each event's bytes whole, hashes them, then decodes them as the library does. */
    static final class Capturing extends EventDeserializer {
        MessageDigest md;
        long events, bytes;

        void reset() throws Exception {
            md = MessageDigest.getInstance("SHA-256");
            events = bytes = 0;
        }

        @Override
        public Event nextEvent(ByteArrayInputStream in) throws IOException {
            if (in.peek() == -1)
                return null;
            byte[] head = in.read(19);
            long size = (head[9] & 0xffL) | (head[10] & 0xffL) << 8 | (head[11] & 0xffL) << 16 | (head[12] & 0xffL) << 24;
            if (size < 19 || size > (1L << 30))
                throw new IOException("event size " + size + " in a header");
            byte[] raw = new byte[(int) size];
            System.arraycopy(head, 0, raw, 0, 19);
            if (size > 19)
                in.fill(raw, 19, (int) size - 19);
            int type = head[4] & 0xff;
            if (type != 27 && type != 41) { // heartbeats are not part of the stream
                md.update(raw);
                events++;
                bytes += size;
            }
            return super.nextEvent(new ByteArrayInputStream(raw));
        }
    }

    public static void main(String[] a) throws Exception {
        int port = Integer.parseInt(a[0]);
        String first = a[1];
        int threads = Integer.parseInt(a[2]);
        long deadline = System.currentTimeMillis() + Long.parseLong(a[3]) * 1000;
        String want = a[4];
        long wantEvents = Long.parseLong(a[5]);
        long sidBase = Long.parseLong(a[6]);
        AtomicLong seq = new AtomicLong();
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final int id = t;
            ts[t] = new Thread(() -> {
                int dump = 0;
                while (System.currentTimeMillis() < deadline) {
                    dump++;
                    String name = "java[" + id + "] dump " + dump;
                    try {
                        Capturing des = new Capturing();
                        des.reset();
                        BinaryLogClient c = new BinaryLogClient("127.0.0.1", port, "cdch", "cdch");
                        c.setServerId(sidBase + seq.incrementAndGet());
                        c.setBlocking(false);
                        c.setKeepAlive(false);
                        c.setBinlogFilename(first);
                        c.setBinlogPosition(4);
                        c.setEventDeserializer(des);
                        final String[] failure = {null};
                        c.registerLifecycleListener(new BinaryLogClient.AbstractLifecycleListener() {
                            @Override
                            public void onCommunicationFailure(BinaryLogClient cl, Exception ex) {
                                failure[0] = "communication failure: " + ex;
                            }

                            @Override
                            public void onEventDeserializationFailure(BinaryLogClient cl, Exception ex) {
                                failure[0] = "deserialization failure: " + ex;
                            }
                        });
                        c.connect(); // non-blocking: returns after the EOF
                        String got = HexFormat.of().formatHex(des.md.digest());
                        String line;
                        if (failure[0] != null)
                            line = "FAIL " + name + ": " + failure[0];
                        else if (des.events != wantEvents || !got.equals(want))
                            line = "FAIL " + name + ": " + des.events + " events, sha256 " + got + "; want " + wantEvents + " events, sha256 " + want;
                        else
                            line = "PASS " + name + ": " + des.events + " events, " + des.bytes + " bytes";
                        synchronized (System.out) {
                            System.out.println(line);
                            System.out.flush();
                        }
                    } catch (Exception ex) {
                        synchronized (System.out) {
                            System.out.println("FAIL " + name + ": " + ex);
                            System.out.flush();
                        }
                    }
                }
            });
            ts[t].start();
        }
        for (Thread t : ts)
            t.join();
    }
}
