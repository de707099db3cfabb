package dev.muster.common.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.common.rpc.TestPki;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.X509ExtendedKeyManager;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server that holds its certificate across a CA change ({@link CertificateFiles#holdOnCaChange}): kube-scheduler
 * reads its extender CA only at start, so while one that trusts only the old CA runs, the extender goes on presenting
 * the certificate that CA signed.
 */
class CertificateHoldTest {
    private static final Path MOUNT = Path.of("/etc/muster/tls");
    private static final Duration LONGEST = Duration.ofMinutes(5);

    @TempDir
    Path dir;
    private TestPki old;
    private TestPki fresh;
    private TestPki.Issued oldServer;
    private TestPki.Issued newServer;
    private final AtomicReference<TlsSource.Snapshot> secret = new AtomicReference<>();
    private final AtomicLong clock = new AtomicLong();
    private CertificateFiles files;

    @BeforeEach
    void setUp() throws Exception {
        old = new TestPki(Files.createDirectories(dir.resolve("old")), "old");
        fresh = new TestPki(Files.createDirectories(dir.resolve("new")), "new");
        oldServer = old.server("extender");
        newServer = fresh.server("extender");
        secret.set(snapshot("1", oldServer, Files.readAllBytes(old.caFile())));
        files = new CertificateFiles(MOUNT.resolve("tls.crt"), MOUNT.resolve("tls.key"), MOUNT.resolve("ca.crt"),
                TlsSource.of("Secret test/extender-tls", secret::get), Duration.ofMinutes(10).toNanos(), clock::get)
                .holdOnCaChange(LONGEST);
    }

    /** The Secret changes to {@code issued} and {@code ca}, and the next handshake's look re-reads it. */
    private void change(String version, TestPki.Issued issued, byte[] ca) throws Exception {
        secret.set(snapshot(version, issued, ca));
        clock.addAndGet(2 * CertificateFiles.CHECK_EVERY_NANOS);
    }

    @Test
    void aCertificateOfANewCaIsPresentedToServersOnlyOnceReleasedWhileClientsAndTrustMoveAtOnce() throws Exception {
        X509ExtendedKeyManager keys = files.keyManager();
        change("2", newServer, Files.readAllBytes(fresh.caFile()));

        assertThat(files.holding()).isTrue();
        assertThat(issuer(files.certificate())).as("what a server presents").isEqualTo("CN=old-ca");
        assertThat(issuer(files.loaded())).as("the files as they are now").isEqualTo("CN=new-ca");
        String server = keys.chooseEngineServerAlias("EC", null, null);
        assertThat(issuer(keys.getCertificateChain(server)[0])).isEqualTo("CN=old-ca");
        assertThat(TestPki.pairs(keys.getCertificateChain(server)[0], keys.getPrivateKey(server))).isTrue();
        String client = keys.chooseEngineClientAlias(new String[] {"EC"}, null, null);
        assertThat(issuer(keys.getCertificateChain(client)[0])).as("a client presents the files as they are now").isEqualTo("CN=new-ca");
        files.trustManager(true).checkClientTrusted(chain(fresh.client("peer").cert()), "EC"); // the new CA is trusted at once
        files.trustManager(true).checkClientTrusted(chain(old.client("peer").cert()), "EC"); // and the old one for its grace period

        files.release("the peers of the old CA are gone");
        assertThat(files.holding()).isFalse();
        assertThat(issuer(files.certificate())).isEqualTo("CN=new-ca");
        String next = keys.chooseServerAlias("EC", null, null);
        assertThat(issuer(keys.getCertificateChain(next)[0])).isEqualTo("CN=new-ca");
        assertThat(TestPki.pairs(keys.getCertificateChain(next)[0], keys.getPrivateKey(next))).isTrue();
        assertThat(keys.getCertificateChain(server)).as("a handshake begun before the release finishes with the old pair").isNotNull();
    }

    @Test
    void aHoldEndsByItselfAfterItsLongest() throws Exception {
        change("2", newServer, Files.readAllBytes(fresh.caFile()));
        assertThat(files.holding()).isTrue();

        clock.addAndGet(LONGEST.toNanos() - 2 * CertificateFiles.CHECK_EVERY_NANOS);
        assertThat(files.holding()).as("not yet").isTrue();
        clock.addAndGet(2 * CertificateFiles.CHECK_EVERY_NANOS);
        assertThat(files.holding()).isFalse();
        assertThat(issuer(files.certificate())).isEqualTo("CN=new-ca");
    }

    @Test
    void aLeafRenewedByTheSameCaIsPresentedAtOnce() throws Exception {
        TestPki.Issued renewed = old.server("extender-renewed");
        change("2", renewed, Files.readAllBytes(old.caFile()));
        assertThat(files.holding()).isFalse();
        assertThat(files.certificate()).isEqualTo(files.loaded());
        assertThat(files.certificate()).isNotEqualTo(chain(oldServer.cert())[0]);
    }

    /** Helm's stages: the CA file held both CAs before the new certificate was used, so every peer trusts it already. */
    @Test
    void aCertificateWhoseCaWasTrustedBeforeIsPresentedAtOnce() throws Exception {
        byte[] both = concat(Files.readAllBytes(fresh.caFile()), Files.readAllBytes(old.caFile()));
        change("2", oldServer, both); // trust
        assertThat(files.holding()).isFalse();
        change("3", newServer, both); // use
        assertThat(files.holding()).isFalse();
        assertThat(issuer(files.certificate())).isEqualTo("CN=new-ca");
    }

    @Test
    void withoutAHoldACaChangeIsPresentedAtOnce() throws Exception {
        CertificateFiles plain = new CertificateFiles(MOUNT.resolve("tls.crt"), MOUNT.resolve("tls.key"), MOUNT.resolve("ca.crt"),
                TlsSource.of("Secret test/extender-tls", secret::get), Duration.ofMinutes(10).toNanos(), clock::get);
        change("2", newServer, Files.readAllBytes(fresh.caFile()));
        assertThat(plain.holding()).isFalse();
        assertThat(issuer(plain.certificate())).isEqualTo("CN=new-ca");
    }

    /** A second change during a hold (the new certificate re-issued again) keeps the first hold's certificate and start. */
    @Test
    void aSecondChangeDuringAHoldKeepsPresentingTheCertificateFromBeforeTheFirst() throws Exception {
        change("2", newServer, Files.readAllBytes(fresh.caFile()));
        assertThat(files.holding()).isTrue();
        change("3", fresh.server("extender-again"), Files.readAllBytes(fresh.caFile()));
        assertThat(files.holding()).isTrue();
        assertThat(files.loaded()).isNotEqualTo(chain(newServer.cert())[0]);
        assertThat(files.certificate()).isEqualTo(chain(oldServer.cert())[0]);
        clock.addAndGet(LONGEST.toNanos() - 2 * CertificateFiles.CHECK_EVERY_NANOS);
        assertThat(files.holding()).as("the longest counts from the first change").isFalse();
    }

    /**
     * Handshakes on many threads (alias, then chain, then key, each its own call) while the Secret flips between the two
     * CAs and holds are released: a handshake never gets one load's chain with another's key. (One that two reloads
     * overtake between its calls finds its load gone and fails, as a handshake two seconds long would; at most a few.)
     */
    @Test
    void handshakesOnManyThreadsAlwaysPairAChainWithItsKeyWhileChangesAndReleasesRace() throws Exception {
        X509ExtendedKeyManager keys = files.keyManager();
        List<TestPki.Issued> servers = List.of(oldServer, newServer, old.server("extender-2"), fresh.server("extender-2"));
        List<byte[]> cas = List.of(Files.readAllBytes(old.caFile()), Files.readAllBytes(fresh.caFile()));
        AtomicBoolean done = new AtomicBoolean();
        CountDownLatch started = new CountDownLatch(8);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<Integer>> results = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            boolean asServer = t % 2 == 0;
            results.add(pool.submit(() -> {
                started.countDown();
                int n = 0;
                while (!done.get() || n == 0) {
                    String alias = asServer ? keys.chooseEngineServerAlias("EC", null, null) : keys.chooseEngineClientAlias(new String[] {"EC"}, null, null);
                    X509Certificate[] c = keys.getCertificateChain(alias);
                    PrivateKey k = keys.getPrivateKey(alias);
                    if (c != null && k != null) {
                        if (!TestPki.pairs(c[0], k)) {
                            throw new AssertionError("handshake " + n + " got a chain with another load's key (alias " + alias + ")");
                        }
                        n++;
                    }
                }
                return n;
            }));
        }
        started.await();
        for (int i = 0; i < 200; i++) {
            int s = i % servers.size();
            change(String.valueOf(10 + i), servers.get(s), cas.get(s % 2));
            files.holding();
            if (i % 3 == 0) {
                files.release("test");
            }
        }
        done.set(true);
        int handshakes = 0;
        for (Future<Integer> f : results) {
            handshakes += f.get();
        }
        pool.shutdown();
        assertThat(handshakes).isGreaterThanOrEqualTo(8);
        files.release("test");
        assertThat(files.certificate()).isEqualTo(files.loaded());
    }

    private static String issuer(X509Certificate c) {
        return c.getIssuerX500Principal().getName();
    }

    private static TlsSource.Snapshot snapshot(String version, TestPki.Issued issued, byte[] ca) throws Exception {
        return new TlsSource.Snapshot(version, Map.of("tls.crt", Files.readAllBytes(issued.cert()), "tls.key", Files.readAllBytes(issued.key()),
                "ca.crt", ca));
    }

    private static X509Certificate[] chain(Path cert) throws Exception {
        return PemTls.certificates(cert).toArray(X509Certificate[]::new);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

}
