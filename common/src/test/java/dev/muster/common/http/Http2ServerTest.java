package dev.muster.common.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.muster.common.rpc.TestPki;
import dev.muster.common.tls.CertificateFiles;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTP/2 on the TLS server: a client that offers h2 by ALPN gets it, many requests share one connection and are
 * answered independently (one parked in its handler holds up none of the others), flow control both ways, the limits,
 * and protocol errors answered with GOAWAY. The JDK's HTTP/2 client for the ordinary cases, raw frames for the rest.
 */
class Http2ServerTest {
    private static final long LIMIT = 2 << 20;
    @TempDir
    Path dir;
    private TestPki pki;
    private SSLContext clientTls;
    private Http1Server server;

    @BeforeEach
    void pki() throws Exception {
        pki = new TestPki(dir, "h2");
        TestPki.Issued client = pki.client("kube-scheduler");
        clientTls = new CertificateFiles(client.cert(), client.key(), pki.caFile()).context(false);
    }

    @AfterEach
    void tearDown() {
        if (server != null) {
            server.close();
        }
    }

    private Http1Server start(Http1Handler handler, int maxConnections) throws Exception {
        return start(handler, maxConnections, LIMIT);
    }

    private Http1Server start(Http1Handler handler, int maxConnections, long limit) throws Exception {
        return start(handler, maxConnections, limit, Duration.ofSeconds(30));
    }

    private Http1Server start(Http1Handler handler, int maxConnections, long limit, Duration idle) throws Exception {
        TestPki.Issued cert = pki.server("127.0.0.1");
        SSLContext tls = new CertificateFiles(cert.cert(), cert.key(), pki.caFile()).context(false);
        server = new Http1Server("test-h2", new InetSocketAddress("127.0.0.1", 0), tls, true, handler, limit, idle,
                maxConnections);
        return server;
    }

    private HttpClient client() {
        return HttpClient.newBuilder().sslContext(clientTls).version(HttpClient.Version.HTTP_2).build();
    }

    private URI uri(String path) {
        return URI.create("https://127.0.0.1:" + server.port() + path);
    }

    @Test
    void manyRequestsParkedInTheirHandlersShareOneConnectionAndEachGetsItsOwnAnswer() throws Exception {
        int n = 300;
        CountDownLatch allIn = new CountDownLatch(n);
        start(r -> {
            if (r.path().equals("/hello")) {
                return Http1Response.text(200, "hello");
            }
            allIn.countDown();
            if (!allIn.await(60, TimeUnit.SECONDS)) { // a gang's binds: none answered before all have arrived
                return Http1Response.text(500, "not all arrived");
            }
            return Http1Response.text(200, r.path() + " " + new String(r.body(), StandardCharsets.UTF_8) + " "
                    + r.peer().getSubjectX500Principal().getName());
        }, 1000);
        try (HttpClient client = client()) {
            // one request first: the JDK's client dials a connection per request sent before its first one is up
            assertThat(client.send(HttpRequest.newBuilder(uri("/hello")).GET().build(), HttpResponse.BodyHandlers.ofString()).body())
                    .isEqualTo("hello");
            List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                answers.add(client.sendAsync(HttpRequest.newBuilder(uri("/bind/" + i)).POST(HttpRequest.BodyPublishers.ofString("pod-" + i)).build(),
                        HttpResponse.BodyHandlers.ofString()));
            }
            for (int i = 0; i < n; i++) {
                HttpResponse<String> r = answers.get(i).get(60, TimeUnit.SECONDS);
                assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.body()).isEqualTo("/bind/" + i + " pod-" + i + " CN=kube-scheduler");
            }
        }
        assertThat(server.http2Connections()).isEqualTo(1);
        assertThat(server.http1Connections()).isZero();
    }

    @Test
    void bodiesLargerThanTheDefaultWindowTravelBothWays() throws Exception {
        start(r -> new Http1Response(200, "application/octet-stream", reversed(r.body())), 100);
        byte[] body = new byte[(int) LIMIT];
        new java.util.Random(7).nextBytes(body);
        try (HttpClient client = client()) {
            HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(uri("/echo")).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo(reversed(body));
            assertThat(r.headers().firstValue("content-type")).hasValue("application/octet-stream");
        }
    }

    /** Many streams answering at once interleave their frames on one connection: every answer arrives whole and its own. */
    @Test
    void concurrentAnswersOfManySizesArriveWholeAndUnmixed() throws Exception {
        start(r -> new Http1Response(200, "application/octet-stream", reversed(r.body())), 1000);
        java.util.Random random = new java.util.Random(11);
        try (HttpClient client = client()) {
            client.send(HttpRequest.newBuilder(uri("/hello")).GET().build(), HttpResponse.BodyHandlers.discarding());
            List<byte[]> bodies = new ArrayList<>();
            List<CompletableFuture<HttpResponse<byte[]>>> answers = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                byte[] body = new byte[random.nextInt(256 * 1024)];
                random.nextBytes(body);
                bodies.add(body);
                answers.add(client.sendAsync(HttpRequest.newBuilder(uri("/echo/" + i)).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                        HttpResponse.BodyHandlers.ofByteArray()));
            }
            for (int i = 0; i < 64; i++) {
                assertThat(answers.get(i).get(60, TimeUnit.SECONDS).body()).isEqualTo(reversed(bodies.get(i)));
            }
        }
        assertThat(server.http2Connections()).isEqualTo(1);
    }

    /** What the handler answers at once runs on the connection's reading thread; the rest on virtual threads of their own. */
    @Test
    void answersGivenAtOnceRunOnTheReadingThreadTheOthersOnTheirOwn() throws Exception {
        start(new Http1Handler() {
            @Override
            public Http1Response handle(Http1Request r) {
                Thread t = Thread.currentThread();
                return Http1Response.text(200, t.getName() + " " + t.isVirtual());
            }

            @Override
            public boolean answersAtOnce(Http1Request r) {
                return r.path().equals("/filter");
            }
        }, 100);
        try (HttpClient client = client()) {
            assertThat(client.send(HttpRequest.newBuilder(uri("/filter")).GET().build(), HttpResponse.BodyHandlers.ofString()).body())
                    .isEqualTo("test-h2-conn false"); // one of the pooled platform threads that read connections
            assertThat(client.send(HttpRequest.newBuilder(uri("/bind")).GET().build(), HttpResponse.BodyHandlers.ofString()).body())
                    .isEqualTo("muster-h2-stream true");
        }
    }

    @Test
    void aBodyOverTheLimitIsRefusedWith413AndTheConnectionServesTheNextRequest() throws Exception {
        start(r -> Http1Response.text(200, "got " + r.body().length), 100);
        try (HttpClient client = client()) {
            HttpResponse<String> big = client.send(HttpRequest.newBuilder(uri("/filter"))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[(int) LIMIT + 1])).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(big.statusCode()).isEqualTo(413);
            assertThat(big.body()).contains("exceeds the limit of " + LIMIT);
            HttpResponse<String> small = client.send(HttpRequest.newBuilder(uri("/filter")).POST(HttpRequest.BodyPublishers.ofString("ok")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(small.body()).isEqualTo("got 2");
        }
        assertThat(server.http2Connections()).isEqualTo(1);
    }

    @Test
    void aHandlerThatThrowsAnswers500OnItsStreamAlone() throws Exception {
        start(r -> {
            if (r.path().equals("/boom")) {
                throw new IllegalStateException("boom");
            }
            return Http1Response.text(200, "fine");
        }, 100);
        try (HttpClient client = client()) {
            HttpResponse<String> boom = client.send(HttpRequest.newBuilder(uri("/boom")).GET().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(boom.statusCode()).isEqualTo(500);
            assertThat(boom.body()).contains("internal error answering GET /boom").contains("boom");
            assertThat(client.send(HttpRequest.newBuilder(uri("/ok")).GET().build(), HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("fine");
        }
    }

    @Test
    void theSwitchIsTrueOrFalseAndNamesABadValue() {
        assertThat(Http1Server.http2(null)).isTrue();
        assertThat(Http1Server.http2(" false ")).isFalse();
        assertThat(Http1Server.http2("true")).isTrue();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Http1Server.http2("no"))
                .hasMessage("-Dmuster.http2=no: expected true or false");
    }

    @Test
    void withHttp2SwitchedOffAnH2ClientIsServedOverHttp11() throws Exception {
        System.setProperty(Http1Server.HTTP2_PROPERTY, "false");
        try {
            start(r -> Http1Response.text(200, "fine"), 100);
        } finally {
            System.clearProperty(Http1Server.HTTP2_PROPERTY);
        }
        try (HttpClient client = client()) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri("/ok")).GET().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
        }
        assertThat(server.http2Connections()).isZero();
    }

    @Test
    void aClientWithoutH2IsServedOverHttp11() throws Exception {
        start(r -> Http1Response.text(200, "fine"), 100);
        try (HttpClient client = HttpClient.newBuilder().sslContext(clientTls).version(HttpClient.Version.HTTP_1_1).build()) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri("/ok")).GET().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
            assertThat(r.body()).isEqualTo("fine");
        }
        assertThat(server.http1Connections()).isEqualTo(1);
        assertThat(server.http2Connections()).isZero();
    }

    /**
     * The answer never exceeds the client's window: 100 bytes, then nothing until the client gives more credit — also
     * for an answer the reading thread gives at once (it must not wait there for the WINDOW_UPDATE it alone reads).
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void anAnswerWaitsForTheClientsWindow(boolean atOnce) throws Exception {
        byte[] answer = new byte[250];
        java.util.Arrays.fill(answer, (byte) 'x');
        start(new Http1Handler() {
            @Override
            public Http1Response handle(Http1Request r) {
                return new Http1Response(200, "text/plain", answer);
            }

            @Override
            public boolean answersAtOnce(Http1Request r) {
                return atOnce;
            }
        }, 100);
        try (RawClient c = new RawClient()) {
            c.settings(new int[] {0x4, 100}); // INITIAL_WINDOW_SIZE 100
            c.get(1, "/x");
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            Frame f;
            while ((f = c.next()).type != 0) {
                // SETTINGS, its ACK, WINDOW_UPDATE, HEADERS
            }
            got.write(f.payload);
            assertThat(got.size()).isEqualTo(100);
            assertThat(f.flags & 1).isZero(); // not the end
            c.windowUpdate(1, 150);
            while (got.size() < 250) {
                f = c.next();
                if (f.type == 0) {
                    got.write(f.payload);
                }
            }
            assertThat(f.flags & 1).isEqualTo(1);
            assertThat(got.toByteArray()).isEqualTo(answer);
        }
    }

    /**
     * An answer whose stream the client reset is not sent and costs the connection's window nothing: the next answer
     * (60,000 bytes; the window never raised) arrives whole without a WINDOW_UPDATE.
     */
    @Test
    void aResetStreamsAnswerIsNotSentAndTheNextAnswerGetsTheWholeWindow() throws Exception {
        CountDownLatch parked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        byte[] big = new byte[60_000];
        start(r -> {
            if (r.path().equals("/first")) {
                parked.countDown();
                release.await(30, TimeUnit.SECONDS);
            }
            return new Http1Response(200, "application/octet-stream", big);
        }, 100);
        try (RawClient c = new RawClient()) {
            c.settings();
            c.get(1, "/first");
            assertThat(parked.await(30, TimeUnit.SECONDS)).isTrue();
            c.frame(3, 0, 1, java.nio.ByteBuffer.allocate(4).putInt(8).array()); // RST_STREAM CANCEL
            c.ping(); // once its ACK is back, the server has read the reset
            Frame f;
            while ((f = c.next()).type != 6 || (f.flags & 1) == 0) {
                // settings and window updates first
            }
            release.countDown();
            c.get(3, "/second");
            int got = 0;
            while (got < big.length) {
                f = c.next();
                if (f.type == 0) {
                    assertThat(f.stream).isEqualTo(3); // nothing of the reset stream's answer
                    got += f.payload.length;
                }
            }
            assertThat(got).isEqualTo(big.length);
        }
    }

    @Test
    void aPingIsAcknowledgedWithItsOwnBytes() throws Exception {
        start(r -> Http1Response.text(200, "fine"), 100);
        try (RawClient c = new RawClient()) {
            c.settings();
            c.frame(6, 0, 0, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
            Frame f;
            while ((f = c.next()).type != 6) {
                // settings and window updates first
            }
            assertThat(f.flags).isEqualTo(1);
            assertThat(f.payload).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
        }
    }

    @Test
    void aProtocolErrorEndsTheConnectionWithGoAwayNamingIt() throws Exception {
        start(r -> Http1Response.text(200, "fine"), 100);
        try (RawClient c = new RawClient()) {
            c.settings();
            c.frame(5, 4, 1, new byte[4]); // PUSH_PROMISE from a client
            Frame f;
            while ((f = c.next()).type != 7) {
                // settings and window updates first
            }
            int code = java.nio.ByteBuffer.wrap(f.payload, 4, 4).getInt();
            assertThat(code).isEqualTo(1); // PROTOCOL_ERROR
            assertThat(new String(f.payload, 8, f.payload.length - 8, StandardCharsets.UTF_8)).contains("PUSH_PROMISE");
        }
    }

    @Test
    void streamsBeyondTheLimitAreRefusedAndTheOthersAnswered() throws Exception {
        ParkedHandler handler = new ParkedHandler(2);
        start(handler, 2);
        try (RawClient c = new RawClient()) {
            c.settings();
            c.get(1, "/a");
            c.get(3, "/b");
            c.get(5, "/c"); // the third at once: over the limit of 2
            Frame f;
            while ((f = c.next()).type != 3) {
                // settings and window updates first
            }
            assertThat(f.stream).isEqualTo(5);
            assertThat(java.nio.ByteBuffer.wrap(f.payload).getInt()).isEqualTo(7); // REFUSED_STREAM
            handler.release();
            List<Integer> answered = new ArrayList<>();
            while (answered.size() < 2) {
                f = c.next();
                if (f.type == 0 && (f.flags & 1) != 0) {
                    answered.add(f.stream);
                }
            }
            assertThat(answered).containsExactlyInAnyOrder(1, 3);
        }
    }

    @Test
    void closingTheServerWakesHandlersAndEndsConnections() throws Exception {
        AtomicReference<Thread> parked = new AtomicReference<>();
        CountDownLatch in = new CountDownLatch(1);
        start(r -> {
            parked.set(Thread.currentThread());
            in.countDown();
            new CountDownLatch(1).await();
            return Http1Response.text(200, "never");
        }, 100);
        try (HttpClient client = client()) {
            CompletableFuture<HttpResponse<String>> r = client.sendAsync(HttpRequest.newBuilder(uri("/bind")).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(in.await(30, TimeUnit.SECONDS)).isTrue();
            server.close();
            await().atMost(Duration.ofSeconds(30)).until(() -> !parked.get().isAlive());
            await().atMost(Duration.ofSeconds(30)).until(r::isDone);
            assertThat(r).isCompletedExceptionally();
        }
    }

    /**
     * Many streams each send part of a body and never end it: the server gives no connection credit back for what it
     * holds, so the client, sending only what it was granted, stalls with exactly the connection's window sent and
     * nothing dispatched. Once the streams end or are reset, credit comes back and the connection serves the next request.
     */
    @Test
    void unfinishedBodiesHoldNoMoreThanTheConnectionWindowAndEndingThemGivesItBack() throws Exception {
        java.util.concurrent.atomic.AtomicInteger handled = new java.util.concurrent.atomic.AtomicInteger();
        start(r -> {
            handled.incrementAndGet();
            return Http1Response.text(200, "got " + r.body().length);
        }, 100);
        try (RawClient c = new RawClient()) {
            c.settings();
            List<Frame> preface = c.untilPingAck();
            long window = DEFAULT_WINDOW + connectionCredit(preface);
            int streamWindow = initialWindow(preface);
            int part = 1536 * 1024; // within the stream's window and the body limit
            int streams = (int) (window / part) + 2; // together more than the connection's window
            assertThat(streamWindow).isGreaterThanOrEqualTo(part);
            for (int i = 0; i < streams; i++) {
                c.post(2 * i + 1, "/held", false);
            }
            int[] sent = new int[streams];
            long total = 0;
            byte[] chunk = new byte[16_384];
            for (int round = 0; window - total > 0 && round < part / chunk.length; round++) {
                for (int i = 0; i < streams && window - total > 0; i++) {
                    int n = (int) Math.min(chunk.length, window - total);
                    c.frame(0, 0, 2 * i + 1, n == chunk.length ? chunk : java.util.Arrays.copyOf(chunk, n));
                    sent[i] += n;
                    total += n;
                }
            }
            assertThat(total).isEqualTo(window); // the client's window is used up...
            assertThat(sent[streams - 1]).isLessThan(part); // ...before every stream has sent its part
            List<Frame> meanwhile = c.untilPingAck();
            assertThat(connectionCredit(meanwhile)).isZero(); // and none of it comes back while nothing is dispatched
            assertThat(meanwhile).noneMatch(f -> f.type == 1);
            assertThat(handled).hasValue(0);

            // the even streams end, the odd ones are reset: everything they hold leaves the connection
            int ended = 0;
            for (int i = 0; i < streams; i++) {
                if (i % 2 == 0) {
                    c.frame(0, 1, 2 * i + 1, new byte[0]); // END_STREAM, no more bytes: no credit needed
                    ended++;
                } else {
                    c.frame(3, 0, 2 * i + 1, java.nio.ByteBuffer.allocate(4).putInt(8).array()); // RST_STREAM CANCEL
                }
            }
            List<Frame> after = new ArrayList<>();
            List<String> answers = new ArrayList<>();
            while (answers.size() < ended) {
                Frame f = c.next();
                after.add(f);
                if (f.type == 0 && (f.flags & 1) != 0) {
                    answers.add(f.stream + " " + new String(f.payload, StandardCharsets.UTF_8));
                }
            }
            after.addAll(c.untilPingAck());
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < streams; i += 2) {
                expected.add((2 * i + 1) + " got " + sent[i]);
            }
            assertThat(answers).containsExactlyInAnyOrderElementsOf(expected);
            assertThat(handled).hasValue(ended);
            long returned = connectionCredit(after);
            assertThat(returned).isGreaterThan(window / 2).isLessThanOrEqualTo(window);

            int next = 2 * streams + 1; // a request whose body needs the credit given back
            byte[] body = new byte[(int) Math.min(LIMIT, returned)];
            c.post(next, "/after", false);
            for (int at = 0; at < body.length; at += chunk.length) {
                int n = Math.min(chunk.length, body.length - at);
                c.frame(0, at + n == body.length ? 1 : 0, next, java.util.Arrays.copyOfRange(body, at, at + n));
            }
            Frame f;
            while ((f = c.next()).type != 0 || f.stream != next) {
                // window updates, the answer's HEADERS
            }
            assertThat(new String(f.payload, StandardCharsets.UTF_8)).isEqualTo("got " + body.length);
        }
    }

    /**
     * Bytes the server does not hold are given back at once while the client is short of credit: the padding of DATA
     * frames (it counts toward flow control), and a body over the limit, dropped on arrival after its 413.
     */
    @Test
    void paddingAndDroppedBodiesAreGivenBackAtOnce() throws Exception {
        start(r -> Http1Response.text(200, "got " + r.body().length), 100);
        try (RawClient c = new RawClient()) {
            c.settings();
            long window = DEFAULT_WINDOW + connectionCredit(c.untilPingAck());
            int part = 1536 * 1024;
            int held = (int) (window / 2 / part) + 1; // more than half the window held: free bytes go back at once
            byte[] chunk = new byte[16_384];
            for (int i = 0; i < held; i++) {
                c.post(2 * i + 1, "/held", false);
                for (int at = 0; at < part; at += chunk.length) {
                    c.frame(0, 0, 2 * i + 1, chunk);
                }
            }
            assertThat(connectionCredit(c.untilPingAck())).isZero();

            int padded = 2 * held + 1;
            c.post(padded, "/padded", false);
            c.frame(0, 0x8, padded, padded(100, 200)); // PADDED: 1 + 100 + 200 bytes, the 201 not data come back
            assertThat(connectionCredit(c.untilPingAck())).isEqualTo(201);
            c.frame(0, 0x8 | 0x1, padded, padded(50, 100)); // and END_STREAM: the padding and the whole body
            List<Frame> answered = c.untilPingAck();
            assertThat(connectionCredit(answered)).isEqualTo(101 + 150);
            assertThat(c.answer(answered, padded)).isEqualTo("got 150");

            int tooLarge = padded + 2;
            c.post(tooLarge, "/big", false, "content-length", Long.toString(LIMIT + 1));
            c.frame(0, 0, tooLarge, new byte[1000]);
            List<Frame> refused = c.untilPingAck();
            assertThat(connectionCredit(refused)).isEqualTo(1000);
            assertThat(c.answer(refused, tooLarge)).contains("exceeds the limit");
            c.frame(0, 0, tooLarge, new byte[700]); // still in flight when the client saw the reset: dropped
            assertThat(connectionCredit(c.untilPingAck())).isEqualTo(700);
        }
    }

    /**
     * A body larger than 16 MiB within a larger limit arrives: the connection's window is never smaller than one body,
     * so the credit the server holds back for it never stalls it.
     */
    @Test
    void aBodyAboveSixteenMebibytesWithinTheLimitArrives() throws Exception {
        long limit = 17 << 20;
        start(r -> Http1Response.text(200, "got " + r.body().length), 100, limit);
        try (HttpClient client = client()) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri("/big"))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[(int) limit])).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.body()).isEqualTo("got " + limit);
        }
    }

    private static final int DEFAULT_WINDOW = 65_535;

    /** The connection-level credit that these frames give: the sum of the WINDOW_UPDATEs on stream 0. */
    private static long connectionCredit(List<Frame> frames) {
        return frames.stream().filter(f -> f.type == 8 && f.stream == 0)
                .mapToLong(f -> java.nio.ByteBuffer.wrap(f.payload).getInt()).sum();
    }

    /** SETTINGS_INITIAL_WINDOW_SIZE of the server's SETTINGS among these frames. */
    private static int initialWindow(List<Frame> frames) {
        for (Frame f : frames) {
            if (f.type == 4 && (f.flags & 1) == 0) {
                java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(f.payload);
                while (b.hasRemaining()) {
                    int id = b.getShort();
                    int value = b.getInt();
                    if (id == 0x4) {
                        return value;
                    }
                }
            }
        }
        return DEFAULT_WINDOW;
    }

    /**
     * A frame that arrives in parts around a quiet spell longer than the read timeout, while an answer is still running,
     * is read whole: the octets before the spell are kept (the connection is not idle, so it waits on).
     */
    @Test
    void aFrameSplitAroundAQuietSpellWhileAnAnswerRunsIsReadWhole() throws Exception {
        ParkedHandler handler = new ParkedHandler();
        start(handler, 100, LIMIT, Duration.ofMillis(400));
        try (RawClient c = new RawClient()) {
            c.settings();
            c.get(1, "/parked");
            assertThat(handler.parked.await(30, TimeUnit.SECONDS)).isTrue();
            byte[] data = {1, 2, 3, 4, 5, 6, 7, 8};
            byte[] ping = java.nio.ByteBuffer.allocate(17).put(new byte[] {0, 0, 8, 6, 0, 0, 0, 0, 0}).put(data).array();
            c.out.write(ping, 0, 4); // part of the PING's head
            c.out.flush();
            long before = server.http2TimeoutsWaitedOut();
            // three read timeouts pass while the answer on stream 1 runs
            await().atMost(Duration.ofSeconds(30)).until(() -> server.http2TimeoutsWaitedOut() >= before + 3);
            c.out.write(ping, 4, ping.length - 4);
            c.out.flush();
            Frame f;
            while ((f = c.next()).type != 6) {
                assertThat(f.type).as("no GOAWAY").isNotEqualTo(7);
            }
            assertThat(f.flags).isEqualTo(1);
            assertThat(f.payload).containsExactly(data);
            handler.release();
            assertThat(c.answer(List.of(), 1)).isEqualTo("/parked");
        } finally {
            handler.release();
        }
    }

    /** An empty content-length names no length: the body that comes is read and the request answered. */
    @Test
    void anEmptyContentLengthIsNoLength() throws Exception {
        start(r -> Http1Response.text(200, "got " + r.body().length), 100);
        try (RawClient c = new RawClient()) {
            c.settings();
            c.post(1, "/e", false, "content-length", "");
            c.frame(0, 1, 1, "abc".getBytes(StandardCharsets.US_ASCII)); // DATA, END_STREAM
            assertThat(c.answer(c.untilPingAck(), 1)).isEqualTo("got 3");
        }
    }

    /**
     * A body that does not add up to its content-length — shorter when the stream ends, longer at any frame, or none
     * at all — is malformed (RFC 9113 §8.1.1): the handler never sees it, its stream is reset with PROTOCOL_ERROR, its
     * bytes are given back, and the connection goes on serving.
     */
    @Test
    void aBodyThatDoesNotAddUpToItsContentLengthResetsItsStreamAndReachesNoHandler() throws Exception {
        List<String> handled = java.util.Collections.synchronizedList(new ArrayList<>());
        start(r -> {
            handled.add(r.path());
            return Http1Response.text(200, "got " + r.body().length);
        }, 100);
        try (RawClient c = new RawClient()) {
            c.settings();
            c.post(1, "/short", false, "content-length", "5");
            c.frame(0, 1, 1, "abc".getBytes(StandardCharsets.US_ASCII)); // DATA, END_STREAM: 3 of 5
            c.post(3, "/long", false, "content-length", "2");
            c.frame(0, 0, 3, "abc".getBytes(StandardCharsets.US_ASCII)); // 3 of 2, before the stream ends
            c.post(5, "/none", true, "content-length", "4"); // HEADERS with END_STREAM: 0 of 4
            c.post(7, "/trailers", false, "content-length", "4");
            c.frame(0, 0, 7, "ab".getBytes(StandardCharsets.US_ASCII));
            ByteArrayOutputStream trailers = new ByteArrayOutputStream();
            Hpack.literal(trailers, "x-checksum", "0");
            c.frame(1, 0x5, 7, trailers.toByteArray()); // trailers end the stream at 2 of 4
            List<Frame> frames = c.untilPingAck();
            for (int stream : List.of(1, 3, 5, 7)) {
                assertThat(frames).as("stream " + stream).anyMatch(f -> f.type == 3 && f.stream == stream
                        && java.nio.ByteBuffer.wrap(f.payload).getInt() == 1); // RST_STREAM PROTOCOL_ERROR
            }
            assertThat(frames).noneMatch(f -> f.type == 7); // no GOAWAY: only the streams were at fault
            c.post(9, "/right", false, "content-length", "3");
            c.frame(0, 1, 9, "abc".getBytes(StandardCharsets.US_ASCII));
            assertThat(c.answer(c.untilPingAck(), 9)).isEqualTo("got 3");
            assertThat(handled).containsExactly("/right");
        }
    }

    /** A declared body over the limit is answered 413 as soon as its HEADERS arrive: nothing of it need be sent. */
    @Test
    void aDeclaredBodyOverTheLimitIsAnsweredAtItsHeaders() throws Exception {
        start(r -> Http1Response.text(200, "got " + r.body().length), 100);
        try (RawClient c = new RawClient()) {
            c.settings();
            c.post(1, "/big", false, "content-length", Long.toString(LIMIT + 1)); // no DATA follows
            assertThat(c.answer(c.untilPingAck(), 1)).contains("exceeds the limit");
        }
    }

    /**
     * SETTINGS_INITIAL_WINDOW_SIZE that takes the window of a stream being answered beyond 2^31-1 ends the connection
     * with FLOW_CONTROL_ERROR (RFC 9113 §6.9.2).
     */
    @Test
    void anInitialWindowThatOverflowsAnOpenStreamsWindowIsAFlowControlError() throws Exception {
        ParkedHandler handler = new ParkedHandler();
        start(handler, 100);
        try (RawClient c = new RawClient()) {
            c.settings();
            c.get(1, "/parked");
            assertThat(handler.parked.await(30, TimeUnit.SECONDS)).isTrue();
            c.windowUpdate(1, Integer.MAX_VALUE - DEFAULT_WINDOW); // the stream's window is now 2^31-1
            c.settings(0x4, DEFAULT_WINDOW + 1);
            Frame f;
            while ((f = c.next()).type != 7) {
                // settings, its ACK and window updates first
            }
            assertThat(java.nio.ByteBuffer.wrap(f.payload, 4, 4).getInt()).isEqualTo(3); // FLOW_CONTROL_ERROR
            assertThat(new String(f.payload, 8, f.payload.length - 8, StandardCharsets.UTF_8)).contains("SETTINGS_INITIAL_WINDOW_SIZE");
        } finally {
            handler.release();
        }
    }

    /** A PADDED DATA frame's payload: the pad length, {@code data} bytes, {@code padding} zeros. */
    private static byte[] padded(int data, int padding) {
        byte[] p = new byte[1 + data + padding];
        p[0] = (byte) padding;
        java.util.Arrays.fill(p, 1, 1 + data, (byte) 'd');
        return p;
    }

    private static byte[] reversed(byte[] b) {
        byte[] r = new byte[b.length];
        for (int i = 0; i < b.length; i++) {
            r[i] = b[b.length - 1 - i];
        }
        return r;
    }

    private record Frame(int type, int flags, int stream, byte[] payload) {}

    /** An HTTP/2 client written frame by frame, for what the JDK's client never does. */
    private final class RawClient implements AutoCloseable {
        final SSLSocket socket;
        final DataInputStream in;
        final OutputStream out;

        RawClient() throws IOException {
            socket = (SSLSocket) clientTls.getSocketFactory().createSocket("127.0.0.1", server.port());
            SSLParameters p = socket.getSSLParameters();
            p.setApplicationProtocols(new String[] {"h2"});
            socket.setSSLParameters(p);
            socket.setSoTimeout(30_000);
            socket.startHandshake();
            assertThat(socket.getApplicationProtocol()).isEqualTo("h2");
            in = new DataInputStream(socket.getInputStream());
            out = socket.getOutputStream();
            out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        }

        void settings(int... idValue) throws IOException {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(idValue.length / 2 * 6);
            for (int i = 0; i < idValue.length; i += 2) {
                b.putShort((short) idValue[i]).putInt(idValue[i + 1]);
            }
            frame(4, 0, 0, b.array());
        }

        void get(int stream, String path) throws IOException {
            ByteArrayOutputStream block = new ByteArrayOutputStream();
            Hpack.literal(block, ":method", "GET");
            Hpack.literal(block, ":scheme", "https");
            Hpack.literal(block, ":path", path);
            Hpack.literal(block, ":authority", "127.0.0.1");
            frame(1, 0x5, stream, block.toByteArray()); // END_STREAM | END_HEADERS
        }

        void ping() throws IOException {
            frame(6, 0, 0, new byte[8]);
        }

        /** A POST's HEADERS, with END_STREAM when {@code end}; {@code nameValue}: further fields. */
        void post(int stream, String path, boolean end, String... nameValue) throws IOException {
            ByteArrayOutputStream block = new ByteArrayOutputStream();
            Hpack.literal(block, ":method", "POST");
            Hpack.literal(block, ":scheme", "https");
            Hpack.literal(block, ":path", path);
            Hpack.literal(block, ":authority", "127.0.0.1");
            for (int i = 0; i < nameValue.length; i += 2) {
                Hpack.literal(block, nameValue[i], nameValue[i + 1]);
            }
            frame(1, end ? 0x5 : 0x4, stream, block.toByteArray());
        }

        /**
         * The body of the answer on {@code stream} (one DATA frame): found among {@code seen}, else read on (answers are
         * written on threads of their own, so they may come after a PING's ACK).
         */
        String answer(List<Frame> seen, int stream) throws IOException {
            for (Frame f : seen) {
                if (f.type == 0 && f.stream == stream) {
                    return new String(f.payload, StandardCharsets.UTF_8);
                }
            }
            Frame f;
            while ((f = next()).type != 0 || f.stream != stream) {
                // other frames
            }
            return new String(f.payload, StandardCharsets.UTF_8);
        }

        private long pings;

        /** Sends a PING and returns the frames that arrive before its ACK: all the server wrote for what came before it. */
        List<Frame> untilPingAck() throws IOException {
            byte[] data = java.nio.ByteBuffer.allocate(8).putLong(++pings).array();
            frame(6, 0, 0, data);
            List<Frame> frames = new ArrayList<>();
            for (Frame f = next(); f.type != 6 || (f.flags & 1) == 0 || !java.util.Arrays.equals(f.payload, data); f = next()) {
                frames.add(f);
            }
            return frames;
        }

        void windowUpdate(int stream, int increment) throws IOException {
            frame(8, 0, stream, java.nio.ByteBuffer.allocate(4).putInt(increment).array());
        }

        void frame(int type, int flags, int stream, byte[] payload) throws IOException {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(9 + payload.length);
            b.put((byte) (payload.length >>> 16)).put((byte) (payload.length >>> 8)).put((byte) payload.length)
                    .put((byte) type).put((byte) flags).putInt(stream).put(payload);
            out.write(b.array());
            out.flush();
        }

        Frame next() throws IOException {
            byte[] h = new byte[9];
            in.readFully(h);
            int length = (h[0] & 0xff) << 16 | (h[1] & 0xff) << 8 | h[2] & 0xff;
            byte[] p = new byte[length];
            in.readFully(p);
            return new Frame(h[3] & 0xff, h[4] & 0xff, java.nio.ByteBuffer.wrap(h, 5, 4).getInt() & 0x7fffffff, p);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
