package dev.muster.common.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The HTTP/1.1 server over raw sockets: what it reads, what it answers, when it closes, and many clients at once. */
class Http1ServerTest {
    private static final long LIMIT = 4096;
    private Http1Server server;

    /** Echoes method, path, the x-test header and the body: "POST /p hdr 5:hello". */
    private static final Http1Handler ECHO = r -> Http1Response.text(200,
            r.method() + " " + r.path() + " " + r.header("X-Test") + " " + r.body().length + ":" + new String(r.body(), StandardCharsets.UTF_8));

    @AfterEach
    void tearDown() {
        if (server != null) {
            server.close();
        }
    }

    private Http1Server start(Http1Handler handler, Duration idle) throws IOException {
        return start(handler, idle, 100);
    }

    private Http1Server start(Http1Handler handler, Duration idle, int maxConnections) throws IOException {
        server = new Http1Server("test-http", new InetSocketAddress("127.0.0.1", 0), null, handler, LIMIT, idle, maxConnections);
        return server;
    }

    @Test
    void keepsAConnectionAliveAcrossRequestsAndHandsTheHandlerWhatWasSent() throws Exception {
        start(ECHO, Duration.ofMinutes(1));
        try (Raw c = new Raw(server.port())) {
            for (int i = 0; i < 3; i++) {
                String body = "body-" + i;
                c.send("POST /filter?x=1 HTTP/1.1\r\nHost: h\r\nX-Test: v" + i + "\r\nContent-Length: " + body.length() + "\r\n\r\n" + body);
                Reply r = c.reply();
                assertThat(r.status).isEqualTo(200);
                assertThat(r.body).isEqualTo("POST /filter v" + i + " 6:" + body);
                assertThat(r.head).doesNotContainIgnoringCase("connection: close");
            }
            assertThat(server.connections()).isEqualTo(1);
        }
    }

    @Test
    void readsAChunkedBodyAndAnswersExpectContinueBeforeTheBody() throws Exception {
        start(ECHO, Duration.ofMinutes(1));
        try (Raw c = new Raw(server.port())) {
            c.send("POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n");
            assertThat(c.line()).isEqualTo("HTTP/1.1 100 Continue");
            assertThat(c.line()).isEmpty();
            c.send("5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: t\r\n\r\n");
            assertThat(c.reply().body).isEqualTo("POST /c null 11:hello world");
        }
    }

    @Test
    void closesAfterConnectionCloseAndAfterAnHttp10Request() throws Exception {
        start(ECHO, Duration.ofMinutes(1));
        try (Raw c = new Raw(server.port())) {
            c.send("GET /a HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
            Reply r = c.reply();
            assertThat(r.head).containsIgnoringCase("connection: close");
            assertThat(c.atEnd()).isTrue();
        }
        try (Raw c = new Raw(server.port())) {
            c.send("GET /b HTTP/1.0\r\n\r\n");
            assertThat(c.reply().head).startsWith("HTTP/1.0 200");
            assertThat(c.atEnd()).isTrue();
        }
        try (Raw c = new Raw(server.port())) { // HTTP/1.0 keep-alive is honoured and said
            c.send("GET /c HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
            assertThat(c.reply().head).containsIgnoringCase("connection: keep-alive");
            c.send("GET /d HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
            assertThat(c.reply().body).startsWith("GET /d");
        }
    }

    @Test
    void aHeadRequestGetsTheLengthButNoBody() throws Exception {
        start(r -> Http1Response.text(200, "twelve bytes"), Duration.ofMinutes(1));
        try (Raw c = new Raw(server.port())) {
            c.send("HEAD /x HTTP/1.1\r\nHost: h\r\n\r\n");
            Reply r = c.replyHeadOnly();
            assertThat(r.head).containsIgnoringCase("content-length: 12");
            c.send("GET /x HTTP/1.1\r\nHost: h\r\n\r\n"); // the next answer starts right after the head: no body was sent
            assertThat(c.reply().body).isEqualTo("twelve bytes");
        }
    }

    @Test
    void aBodyOverTheLimitIsRefusedUnreadAndTheClientStillReadsTheRefusal() throws Exception {
        AtomicBoolean called = new AtomicBoolean();
        start(r -> {
            called.set(true);
            return Http1Response.text(200, "no");
        }, Duration.ofMinutes(1));
        byte[] big = new byte[200 * 1024];
        Arrays.fill(big, (byte) 'x');
        try (Raw c = new Raw(server.port())) {
            c.send("POST /filter HTTP/1.1\r\nHost: h\r\nContent-Length: " + big.length + "\r\n\r\n");
            c.out.write(big); // the whole body, as a client that does not wait for 100-continue does
            Reply r = c.reply();
            assertThat(r.status).isEqualTo(413);
            assertThat(r.body).contains("exceeds the limit of 4096 bytes");
            assertThat(r.head).containsIgnoringCase("connection: close");
        }
        try (Raw c = new Raw(server.port())) { // chunked: refused once the chunks pass the limit
            c.send("POST /filter HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1000\r\n" + "y".repeat(4096) + "\r\n1\r\nz\r\n0\r\n\r\n");
            assertThat(c.reply().status).isEqualTo(413);
        }
        assertThat(called).isFalse();
    }

    @Test
    void aDeclaredLengthAloneAllocatesNothingLikeItTheBodyGrowsAsItsBytesArrive() throws Exception {
        long declared = 256L << 20;
        server = new Http1Server("test-http", new InetSocketAddress("127.0.0.1", 0), null, ECHO, declared, Duration.ofMinutes(1), 100);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long before = threads.getTotalThreadAllocatedBytes();
        for (int i = 0; i < 4; i++) { // four clients announce 256 MiB each, send 1 KiB and go away
            try (Raw c = new Raw(server.port())) {
                c.send("POST /bind HTTP/1.1\r\nHost: h\r\nContent-Length: " + declared + "\r\n\r\n" + "x".repeat(1024));
            }
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> server.connections() == 0);
        }
        assertThat(threads.getTotalThreadAllocatedBytes() - before).isLessThan(declared); // 1 GiB announced

        try (Raw c = new Raw(server.port())) { // a body that does arrive is read whole, across the doublings
            byte[] body = new byte[300 * 1024 + 7];
            Arrays.fill(body, (byte) 'b');
            c.send("POST /bind HTTP/1.1\r\nHost: h\r\nContent-Length: " + body.length + "\r\n\r\n");
            c.out.write(body);
            assertThat(c.reply().body).startsWith("POST /bind null " + body.length + ":bbbb").endsWith("bbb");
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "no target                 | GET HTTP/1.1\\r\\n\\r\\n                                                          | 400 | malformed request line",
        "HTTP/2 preface            | PRI * HTTP/2.0\\r\\n\\r\\nSM\\r\\n\\r\\n                                            | 505 | HTTP/2.0",
        "relative target           | GET filter HTTP/1.1\\r\\n\\r\\n                                                   | 400 | request target",
        "header without a colon    | GET / HTTP/1.1\\r\\nHost h\\r\\n\\r\\n                                              | 400 | malformed header",
        "space before the colon    | GET / HTTP/1.1\\r\\nHost : h\\r\\n\\r\\n                                            | 400 | malformed header",
        "folded header             | GET / HTTP/1.1\\r\\nA: b\\r\\n c\\r\\n\\r\\n                                          | 400 | folding",
        "letters as a length       | POST / HTTP/1.1\\r\\nContent-Length: ten\\r\\n\\r\\n                                 | 400 | Content-Length",
        "negative length           | POST / HTTP/1.1\\r\\nContent-Length: -1\\r\\n\\r\\n                                  | 400 | Content-Length",
        "two different lengths     | POST / HTTP/1.1\\r\\nContent-Length: 1\\r\\nContent-Length: 2\\r\\n\\r\\nab            | 400 | Content-Length",
        "length and chunked        | POST / HTTP/1.1\\r\\nContent-Length: 1\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n      | 400 | both",
        "gzip transfer coding      | POST / HTTP/1.1\\r\\nTransfer-Encoding: gzip\\r\\n\\r\\n                             | 501 | gzip",
        "bad chunk size            | POST / HTTP/1.1\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\nzz\\r\\n                     | 400 | chunk size",
        "unknown expectation       | POST / HTTP/1.1\\r\\nExpect: magic\\r\\nContent-Length: 0\\r\\n\\r\\n                  | 417 | magic",
    })
    void refusesWhatItCannotServeWithAStatusThatNamesTheProblem(String name, String request, int status, String mentions) throws Exception {
        start(ECHO, Duration.ofMinutes(1));
        try (Raw c = new Raw(server.port())) {
            c.send(request.strip().replace("\\r\\n", "\r\n"));
            Reply r = c.reply();
            assertThat(r.status).isEqualTo(status);
            assertThat(r.body).contains(mentions);
            assertThat(r.head).containsIgnoringCase("connection: close");
            assertThat(c.atEnd()).isTrue();
        }
    }

    @Test
    void aHeaderLongerThanTheFirstBufferIsReadWhole() throws Exception {
        start(ECHO, Duration.ofMinutes(1));
        String big = "b".repeat(3 * Http1Connection.FIRST_BUFFER);
        try (Raw c = new Raw(server.port())) {
            c.send("POST /big HTTP/1.1\r\nX-Test: " + big + "\r\nContent-Length: 2\r\n\r\nok");
            assertThat(c.reply().body).isEqualTo("POST /big " + big + " 2:ok");
        }
    }

    @Test
    void aLineLongerThanTheLimitIs431() throws Exception {
        start(ECHO, Duration.ofMinutes(1));
        try (Raw c = new Raw(server.port())) {
            c.send("GET / HTTP/1.1\r\nX-Big: " + "a".repeat(Http1Connection.MAX_LINE) + "\r\n\r\n");
            assertThat(c.reply().status).isEqualTo(431);
        }
    }

    @Test
    void aHandlerFailureIsA500NamingItAndTheConnectionCloses() throws Exception {
        start(r -> {
            throw new IllegalStateException("ledger on fire");
        }, Duration.ofMinutes(1));
        try (Raw c = new Raw(server.port())) {
            c.send("GET /x HTTP/1.1\r\nHost: h\r\n\r\n");
            Reply r = c.reply();
            assertThat(r.status).isEqualTo(500);
            assertThat(r.body).contains("ledger on fire", "GET /x");
            assertThat(c.atEnd()).isTrue();
        }
    }

    @Test
    void theJdkClientWithItsHttp2UpgradeOfferGetsHttp11() throws Exception {
        start(ECHO, Duration.ofMinutes(1));
        HttpClient client = HttpClient.newHttpClient(); // offers h2c by default
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/v"))
                    .header("X-Test", "jdk").POST(HttpRequest.BodyPublishers.ofString("abc")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
            assertThat(r.body()).isEqualTo("POST /v jdk 3:abc");
        }
    }

    @Test
    void anIdleConnectionIsClosedAfterTheIdleTimeout() throws Exception {
        start(ECHO, Duration.ofMillis(300));
        try (Raw c = new Raw(server.port())) {
            c.send("GET /a HTTP/1.1\r\nHost: h\r\n\r\n");
            assertThat(c.reply().status).isEqualTo(200);
            assertThat(c.atEnd()).isTrue(); // blocks until the server closes the idle connection
            await().atMost(Duration.ofSeconds(10)).until(() -> server.connections() == 0);
        }
    }

    @Test
    void closeInterruptsAHandlerParkedInsideAndClosesEveryConnection() throws Exception {
        ParkedHandler handler = new ParkedHandler(); // never released
        start(handler, Duration.ofMinutes(1));
        try (Raw parked = new Raw(server.port()); Raw idle = new Raw(server.port())) {
            parked.send("POST /bind HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n");
            assertThat(handler.parked.await(10, TimeUnit.SECONDS)).isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> server.connections() == 2);
            server.close();
            assertThat(handler.interrupted.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(parked.atEnd()).isTrue();
            assertThat(idle.atEnd()).isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> server.connections() == 0);
        }
    }

    /**
     * More handlers parked at once than there are platform threads: the first connections are served by platform
     * threads, the rest by virtual ones, every one answers, and close() interrupts both kinds.
     */
    @Test
    void connectionsBeyondThePlatformThreadsGetVirtualOnesAndCloseInterruptsBoth() throws Exception {
        int n = Http1Server.PLATFORM_CONNECTIONS + 4;
        ParkedHandler handler = new ParkedHandler(n); // never released
        List<Boolean> virtual = Collections.synchronizedList(new ArrayList<>());
        start(r -> {
            virtual.add(Thread.currentThread().isVirtual());
            return handler.handle(r);
        }, Duration.ofMinutes(1));
        List<Raw> clients = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                Raw c = new Raw(server.port());
                clients.add(c);
                c.send("POST /bind HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n");
            }
            assertThat(handler.parked.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(virtual).filteredOn(v -> !v).hasSize(Http1Server.PLATFORM_CONNECTIONS);
            assertThat(virtual).filteredOn(v -> v).hasSize(4);
            server.close();
            assertThat(handler.interrupted.await(10, TimeUnit.SECONDS)).isTrue();
            for (Raw c : clients) {
                assertThat(c.atEnd()).isTrue();
            }
        } finally {
            for (Raw c : clients) {
                c.close();
            }
        }
    }

    /** A connection that ends gives its platform thread back: the next connection is served by a platform thread again. */
    @Test
    void anEndedConnectionsPlatformThreadServesTheNextOne() throws Exception {
        List<Boolean> virtual = Collections.synchronizedList(new ArrayList<>());
        start(r -> {
            virtual.add(Thread.currentThread().isVirtual());
            return Http1Response.text(200, "ok");
        }, Duration.ofMinutes(1));
        for (int i = 0; i < 3 * Http1Server.PLATFORM_CONNECTIONS; i++) {
            try (Raw c = new Raw(server.port())) {
                c.send("GET /a HTTP/1.1\r\nHost: h\r\n\r\n");
                assertThat(c.reply().status).isEqualTo(200);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> server.connections() == 0);
        }
        assertThat(virtual).hasSize(3 * Http1Server.PLATFORM_CONNECTIONS).containsOnly(false);
    }

    @Test
    void aNewConnectionOverTheLimitTakesThePlaceOfTheOneThatWaitedLongestForItsClient() throws Exception {
        start(ECHO, Duration.ofMinutes(1), 2);
        try (Raw a = new Raw(server.port()); Raw b = new Raw(server.port())) {
            for (Raw c : List.of(a, b)) {
                c.send("GET /held HTTP/1.1\r\nHost: h\r\n\r\n");
                assertThat(c.reply().status).isEqualTo(200);
            }
            try (Raw third = new Raw(server.port())) {
                third.send("GET /third HTTP/1.1\r\nHost: h\r\n\r\n");
                assertThat(third.reply().body).startsWith("GET /third");
                assertThat(a.atEnd()).as("a idled longest: closed to make room").isTrue();
                assertThat(server.evictedConnections()).isEqualTo(1);
                b.send("GET /still HTTP/1.1\r\nHost: h\r\n\r\n"); // the younger one was not disturbed
                assertThat(b.reply().body).startsWith("GET /still");
            }
        }
    }

    @Test
    void whenEveryOpenConnectionIsInsideItsHandlerANewOneIsClosedUntilOneEnds() throws Exception {
        ParkedHandler handler = new ParkedHandler(2);
        start(handler, Duration.ofMinutes(1), 2);
        try (Raw a = new Raw(server.port()); Raw b = new Raw(server.port())) {
            for (Raw c : List.of(a, b)) {
                c.send("GET /park HTTP/1.1\r\nHost: h\r\n\r\n");
            }
            assertThat(handler.parked.await(10, TimeUnit.SECONDS)).isTrue();
            try (Raw third = new Raw(server.port())) {
                assertThat(third.atEnd()).as("closed at once: both open ones are busy").isTrue();
            }
            handler.release();
            assertThat(a.reply().body).isEqualTo("/park");
            assertThat(b.reply().body).isEqualTo("/park");
            assertThat(server.evictedConnections()).isZero();
        }
    }

    @Test
    void aHeadNotCompleteInTimeClosesTheConnectionButAnIdleKeepAliveOneStays() throws Exception {
        server = new Http1Server("test-http", new InetSocketAddress("127.0.0.1", 0), null, false, ECHO, LIMIT, Duration.ofMinutes(1),
                Duration.ofMillis(300), 100);
        try (Raw idle = new Raw(server.port()); Raw slow = new Raw(server.port()); Raw silent = new Raw(server.port());
             Raw slowSecond = new Raw(server.port())) {
            idle.send("GET /first HTTP/1.1\r\nHost: h\r\n\r\n");
            assertThat(idle.reply().status).isEqualTo(200);
            slowSecond.send("GET /first HTTP/1.1\r\nHost: h\r\n\r\n");
            assertThat(slowSecond.reply().status).isEqualTo(200);
            slow.send("GET /healthz HTTP/1.1\r\n"); // one line of the head, then nothing
            slowSecond.send("GET /second HTTP/1.1\r\nHost: h\r\n"); // the same on a kept-alive connection
            assertThat(slow.atEnd()).isTrue();
            assertThat(silent.atEnd()).as("a connection that never sends a byte").isTrue();
            assertThat(slowSecond.atEnd()).isTrue();
            assertThat(server.headTimeouts()).isEqualTo(3);
            idle.send("GET /later HTTP/1.1\r\nHost: h\r\n\r\n"); // idle longer than the head timeout, still served
            assertThat(idle.reply().body).startsWith("GET /later");
        }
    }

    /** 16 clients on their own keep-alive connections, 300 requests each with random bodies, some chunked: every answer is its own request's. */
    @Test
    void manyConnectionsAtOnceEachGetTheirOwnAnswers() throws Exception {
        start(ECHO, Duration.ofMinutes(1));
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                int client = t;
                done.add(pool.submit(() -> {
                    Random rnd = new Random(client);
                    try (Raw c = new Raw(server.port())) {
                        for (int i = 0; i < 300; i++) {
                            String body = "c" + client + "-" + i + "-" + "z".repeat(rnd.nextInt((int) LIMIT - 20));
                            if (rnd.nextInt(4) == 0) {
                                c.send("PUT /chunked HTTP/1.1\r\nX-Test: " + client + "\r\nTransfer-Encoding: chunked\r\n\r\n"
                                        + Integer.toHexString(body.length()) + "\r\n" + body + "\r\n0\r\n\r\n");
                                assertThat(c.reply().body).isEqualTo("PUT /chunked " + client + " " + body.length() + ":" + body);
                            } else {
                                c.send("POST /p" + i + " HTTP/1.1\r\nX-Test: " + client + "\r\nContent-Length: " + body.length() + "\r\n\r\n" + body);
                                assertThat(c.reply().body).isEqualTo("POST /p" + i + " " + client + " " + body.length() + ":" + body);
                            }
                        }
                    }
                    return 300;
                }));
            }
            int answered = 0;
            for (Future<Integer> f : done) {
                answered += f.get(2, TimeUnit.MINUTES);
            }
            assertThat(answered).isEqualTo(16 * 300);
        } finally {
            pool.shutdownNow();
        }
    }

    private record Reply(int status, String head, String body) {}

    /** A raw client socket that writes exactly what it is given and reads answers with a Content-Length. */
    private static final class Raw implements AutoCloseable {
        final Socket socket;
        final OutputStream out;
        final InputStream in;

        Raw(int port) throws IOException {
            socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout(30_000);
            out = socket.getOutputStream();
            in = socket.getInputStream();
        }

        void send(String s) throws IOException {
            out.write(s.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        }

        String line() throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            for (int c = in.read(); c != '\n'; c = in.read()) {
                if (c < 0) {
                    throw new IOException("closed");
                }
                if (c != '\r') {
                    b.write(c);
                }
            }
            return b.toString(StandardCharsets.ISO_8859_1);
        }

        Reply replyHeadOnly() throws IOException {
            StringBuilder head = new StringBuilder();
            String status = line();
            head.append(status).append('\n');
            for (String h = line(); !h.isEmpty(); h = line()) {
                head.append(h).append('\n');
            }
            return new Reply(Integer.parseInt(status.substring(9, 12)), head.toString(), "");
        }

        Reply reply() throws IOException {
            Reply h = replyHeadOnly();
            int length = 0;
            for (String line : h.head.split("\n")) {
                if (line.regionMatches(true, 0, "content-length:", 0, 15)) {
                    length = Integer.parseInt(line.substring(15).strip());
                }
            }
            return new Reply(h.status, h.head, new String(in.readNBytes(length), StandardCharsets.UTF_8));
        }

        /** True when the server closed the connection (end of stream or a reset). */
        boolean atEnd() throws IOException {
            try {
                return in.read() < 0;
            } catch (java.net.SocketException reset) {
                return true;
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
