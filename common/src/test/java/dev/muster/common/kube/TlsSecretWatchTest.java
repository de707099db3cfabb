package dev.muster.common.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.common.rpc.TestPki;
import dev.muster.common.tls.CertificateFiles;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TlsSecretWatch} against an API server that serves one Secret: listed by name, then watched one event per watch
 * request (the test decides which), so a change, a deletion and bad PEM arrive as the API server would send them.
 */
class TlsSecretWatchTest {
    private static final String NAME = "muster-system/muster-extender-tls";

    @TempDir
    Path dir;

    private final FakeSecretApi fake = new FakeSecretApi();
    private MockKubeApi api;
    private TlsSecretWatch watch;
    private Map<String, byte[]> a;
    private Map<String, byte[]> b;

    @BeforeEach
    void setUp() throws Exception {
        api = MockKubeApi.dispatching(fake);
        a = material(new TestPki(dir, "a"));
        b = material(new TestPki(dir, "b"));
    }

    @AfterEach
    void tearDown() {
        if (watch != null) {
            watch.close();
        }
        api.close();
    }

    private static Map<String, byte[]> material(TestPki pki) throws Exception {
        TestPki.Issued leaf = pki.serverAndClient("muster-extender.muster-system.svc");
        return Map.of("tls.crt", Files.readAllBytes(leaf.cert()), "tls.key", Files.readAllBytes(leaf.key()), "ca.crt", Files.readAllBytes(pki.caFile()));
    }

    private TlsSecretWatch start() {
        KubeClients k = api.clients();
        watch = TlsSecretWatch.start(k.requests(), k.watches(), NAME);
        return watch;
    }

    @Test
    void aChangeIsTakenUpAndTheDataItReplacedIsKeptForTheGracePeriod() {
        fake.stored = secret("1", a);
        start();
        assertThat(text(watch.current().data())).isEqualTo(text(a));
        assertThat(watch.describe()).isEqualTo("Secret " + NAME);

        fake.events.add(event("MODIFIED", secret("2", b)));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> "2".equals(watch.current().version()));
        assertThat(text(watch.current().data())).isEqualTo(text(b));
        assertThat(text(watch.current().replaced())).as("what readers made after the change still trust for a while").isEqualTo(text(a));

        int watches = fake.watches.get();
        fake.events.add(event("MODIFIED", secret("3", b))); // a new resource version, the same data: no change
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> fake.events.isEmpty() && fake.watches.get() > watches + 1);
        assertThat(watch.current().version()).isEqualTo("2");
    }

    @Test
    void aDeletedSecretKeepsTheLastDataInUseEvenWhenAListFindsItGone() {
        fake.stored = secret("1", a);
        start();
        fake.events.add(event("MODIFIED", secret("2", b)));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> "2".equals(watch.current().version()));

        fake.stored = null;
        fake.events.add(event("DELETED", secret("3", b)));
        // the watch breaks (410 Gone): the Secret is listed again and is not there
        fake.events.add("{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":410,\"reason\":\"Expired\"}}");
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> fake.lists.get() >= 2 && fake.events.isEmpty());
        assertThat(watch.current().version()).isEqualTo("2");
        assertThat(text(watch.current().data())).isEqualTo(text(b));

        fake.stored = secret("4", a); // created again: taken up
        fake.events.add(event("ADDED", fake.stored));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> "4".equals(watch.current().version()));
        assertThat(text(watch.current().data())).isEqualTo(text(a));
    }

    @Test
    void badPemKeepsTheLastCertificateInUseAndTheLogSaysWhich() {
        List<String> warnings = new CopyOnWriteArrayList<>();
        Logger log = Logger.getLogger(CertificateFiles.class.getName());
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                warnings.add(r.getLevel() + " " + r.getMessage());
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        java.util.logging.Level level = log.getLevel();
        log.setLevel(java.util.logging.Level.INFO); // the tests' logging keeps errors only
        log.addHandler(handler);
        try {
            fake.stored = secret("1", a);
            start();
            Path tls = Path.of("/etc/muster/tls");
            CertificateFiles files = new CertificateFiles(tls.resolve("tls.crt"), tls.resolve("tls.key"), tls.resolve("ca.crt"), watch);
            var first = files.certificate().getSerialNumber();

            Map<String, byte[]> bad = new java.util.HashMap<>(b);
            bad.put("tls.crt", "-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n".getBytes(StandardCharsets.US_ASCII));
            fake.events.add(event("MODIFIED", secret("2", bad)));
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> "2".equals(watch.current().version()));
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
                files.certificate(); // a handshake's look at the material (at most once a second)
                return warnings.stream().anyMatch(w -> w.contains("cannot be used"));
            });
            assertThat(files.certificate().getSerialNumber()).as("still the certificate read before").isEqualTo(first);
            assertThat(warnings).anySatisfy(w -> assertThat(w).startsWith("WARNING").contains("cannot be used")
                    .contains("Secret " + NAME + " key tls.crt").contains("still using the ones read before"));

            fake.events.add(event("MODIFIED", secret("3", b))); // mended: taken up on the next look
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> !files.certificate().getSerialNumber().equals(first));
        } finally {
            log.removeHandler(handler);
            log.setLevel(level);
        }
    }

    @Test
    void aSecretThatIsNotThereFailsAtStartNamingIt() {
        fake.stored = null;
        assertThatThrownBy(this::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("Secret " + NAME + " does not exist");
    }

    private static Map<String, String> text(Map<String, byte[]> data) {
        Map<String, String> out = new java.util.TreeMap<>();
        data.forEach((k, v) -> out.put(k, new String(v, StandardCharsets.US_ASCII)));
        return out;
    }

    private static String secret(String rv, Map<String, byte[]> data) {
        StringBuilder d = new StringBuilder();
        data.forEach((k, v) -> d.append(d.isEmpty() ? "" : ",").append('"').append(k).append("\":\"").append(Base64.getEncoder().encodeToString(v)).append('"'));
        return "{\"kind\":\"Secret\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"muster-extender-tls\",\"namespace\":\"muster-system\","
                + "\"resourceVersion\":\"" + rv + "\"},\"type\":\"kubernetes.io/tls\",\"data\":{" + d + "}}";
    }

    private static String event(String type, String object) {
        return "{\"type\":\"" + type + "\",\"object\":" + object + "}";
    }

    /**
     * The API server's side: a list answers with the Secret as stored (or none); each watch request answers with the next
     * event the test queued and ends, or, when none comes within 200 ms, with a bookmark (an idle watch).
     */
    private static final class FakeSecretApi extends Dispatcher {
        volatile String stored;
        final BlockingQueue<String> events = new LinkedBlockingQueue<>();
        final AtomicInteger lists = new AtomicInteger();
        final AtomicInteger watches = new AtomicInteger();
        private final AtomicInteger version = new AtomicInteger(100);

        @Override
        public MockResponse dispatch(RecordedRequest request) {
            String path = request.getPath();
            if (!path.startsWith("/api/v1/namespaces/muster-system/secrets") || !path.contains("muster-extender-tls")) {
                return new MockResponse().setResponseCode(404);
            }
            if (path.contains("watch=true")) {
                watches.incrementAndGet();
                String e;
                try {
                    e = events.poll(200, TimeUnit.MILLISECONDS);
                } catch (InterruptedException stop) {
                    e = null;
                }
                if (e == null) {
                    Matcher rv = Pattern.compile("[?&]resourceVersion=([^&]*)").matcher(path);
                    e = MockKubeApi.bookmark(rv.find() ? rv.group(1) : "0");
                }
                return new MockResponse().setResponseCode(200).setHeader("Content-Type", "application/json").setBody(e + "\n");
            }
            lists.incrementAndGet();
            String s = stored;
            return new MockResponse().setResponseCode(200).setHeader("Content-Type", "application/json")
                    .setBody("{\"kind\":\"SecretList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"" + version.incrementAndGet()
                            + "\"},\"items\":[" + (s == null ? "" : s) + "]}");
        }
    }
}
