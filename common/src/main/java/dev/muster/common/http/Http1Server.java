package dev.muster.common.http;

import dev.muster.common.tls.CipherOrder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;

/**
 * Muster's HTTP/1.1 server: one thread per connection that reads a request, calls the {@link Http1Handler} on that
 * same thread and writes the answer, for as long as the client keeps the connection alive ({@link Http1Connection}
 * does the protocol). HTTPS when given an {@link SSLContext}; the TLS handshake runs on the connection's thread,
 * never on the accepting one. TCP_NODELAY on every connection (a keep-alive client that writes headers and body
 * separately would otherwise meet Nagle's algorithm against delayed ACKs, ~40 ms a request).
 *
 * <p>HTTP/2 over TLS: a client that offers {@code h2} by ALPN (kube-scheduler's Go client does) is served by
 * {@link Http2Connection} instead — every request on one connection, each answered on a virtual thread of its own
 * (or, when the handler answers it at once, on the connection's own thread). The
 * binds a gang holds at its barrier then share one connection and one TLS handshake; over HTTP/1.1 each held bind needs
 * a connection of its own, and Go's client keeps only two idle ones, so every held bind opened a new connection with a
 * full handshake (docs/benchmarks.md, "Gangs over the chart's mutual TLS"). Plain HTTP stays HTTP/1.1.
 *
 * <p>Why not the JDK's {@code com.sun.net.httpserver}: its dispatcher thread reads each request's head, hands the
 * exchange to a worker and takes the connection back through its selector after every answer — two thread
 * hand-offs per request. kube-scheduler calls the filter verb serially on a few keep-alive connections, so that
 * latency is added to its scheduling cycle for every pod (docs/benchmarks.md, "A server of our own").
 *
 * <p>Which thread: the first {@value #PLATFORM_CONNECTIONS} connections open at a time are each served by a platform
 * thread (kept in a pool, so a client that reconnects reuses one), every further one by a virtual thread. A platform
 * thread waits for the next request inside the kernel's {@code read} and is woken by the kernel alone; a virtual
 * thread's read parks it, and the next request's bytes wake the JDK's poller thread, which hands the virtual thread
 * to a carrier thread — two more wake-ups per request, each ~0.1 ms of latency on a busy two-core node; in the real
 * loop the platform threads spent half what the carriers and the poller had, ~40 % less of Muster's CPU per pod
 * (docs/benchmarks.md, "A server of our own"). kube-scheduler's
 * serial filter calls use one or two keep-alive connections, which come first and stay, so they get platform
 * threads; the thousands of binds a big gang holds at its barrier each hold a connection, and beyond the first few
 * they park virtual threads, not platform threads.
 *
 * <p>Threads: one accepting thread; per connection one thread that alone owns the connection's state; one reaper. The
 * set of live connections is a concurrent map, so {@link #close()} can close every socket and interrupt every
 * connection thread (a handler parked at the bind barrier wakes up). A connection idle for {@code idleTimeout} between
 * requests is closed; choose it longer than the clients' own idle timeout (Go's is 90 s), so the client closes first
 * and never sends a request into a connection the server is closing.
 *
 * <p>No client can hold the server by being slow: a request head (with a new connection's TLS handshake) must arrive
 * complete within {@code headTimeout} of its first byte (of the accept, for a connection's first request), or the
 * reaper closes the connection. And when {@code maxConnections} are open, a new connection is not refused while
 * another waits for its client (a head or body not yet complete, or idle between requests): the one that has waited
 * longest is closed to make room ({@link ConnectionPhase}). Only when every open connection is inside its handler is
 * a new one refused. So a health probe, which sends its request at once, is answered whatever other clients do.
 */
public final class Http1Server implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Http1Server.class.getName());
    /**
     * The system property that turns HTTP/2 off ({@code false}): TLS clients are then offered HTTP/1.1 alone, as before
     * this server spoke HTTP/2 (the counterpart of Go's {@code DISABLE_HTTP2} on the client's side).
     */
    public static final String HTTP2_PROPERTY = "muster.http2";
    /** Connections served by platform threads at a time; the rest get virtual threads. */
    static final int PLATFORM_CONNECTIONS = 8;
    /** How long a request head may take, by default: from its first byte, or a new connection's accept, to its blank line. */
    public static final Duration DEFAULT_HEAD_TIMEOUT = Duration.ofSeconds(10);
    /** A pooled platform thread without a connection for this long ends. */
    private static final long PLATFORM_IDLE_SECONDS = 60;

    private final String name;
    private final ServerSocket listener;
    private final Http1Handler handler;
    private final long maxBodyBytes;
    private final int idleMillis;
    private final int maxConnections;
    private final long headTimeoutNanos;
    private final SSLContext tls;
    /** The cipher a TLS client is given first: ChaCha20-Poly1305 when this JVM runs without C2 ({@link CipherOrder}). */
    private final CipherOrder ciphers = CipherOrder.forThisJvm();
    /** The protocols offered by ALPN: h2 first unless {@link #HTTP2_PROPERTY} is false. */
    private final String[] protocols = http2(System.getProperty(HTTP2_PROPERTY))
            ? new String[] {Http2Connection.ALPN, "http/1.1"} : new String[] {"http/1.1"};
    private final boolean requireClientCertificates;
    /** Connections accepted and not yet ended: counted by the accepting thread, uncounted by the connection's or an eviction. */
    private final AtomicInteger open = new AtomicInteger();
    /** Each live connection by its accepted socket, put by the accepting thread, removed by the connection's. */
    private final Map<Socket, ConnectionPhase> live = new ConcurrentHashMap<>();
    /** Connections closed to make room for a new one, and for a head that took too long, since start. */
    private final java.util.concurrent.atomic.LongAdder evicted = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder headTimeouts = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder connections = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder h2Connections = new java.util.concurrent.atomic.LongAdder();
    /** Read timeouts that HTTP/2 connections waited out while answers ran, since start. */
    private final java.util.concurrent.atomic.LongAdder h2TimeoutsWaitedOut = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.AtomicLong lastEvictionLog = new java.util.concurrent.atomic.AtomicLong();
    /** Up to {@link #PLATFORM_CONNECTIONS} threads; a hand-off it refuses (all busy) goes to a virtual thread. */
    private final ThreadPoolExecutor platformThreads;
    private long lastRefusalLog; // accepting thread only
    private final java.util.concurrent.atomic.AtomicLong lastHandshakeLog = new java.util.concurrent.atomic.AtomicLong();
    /** TLS handshakes that failed (a client without an accepted certificate, or not speaking TLS), since start. */
    private final java.util.concurrent.atomic.LongAdder refusedHandshakes = new java.util.concurrent.atomic.LongAdder();
    private final Thread acceptor;
    private final Thread reaper;
    private volatile boolean closed;

    /**
     * Listens on {@code address} at once.
     *
     * @param name         names the threads ({@code name-accept}, {@code name-conn})
     * @param tls          null for plain HTTP
     * @param maxBodyBytes   larger bodies are refused with {@link Http1Handler#bodyTooLarge} and never buffered
     * @param maxConnections connections beyond this many open ones are closed as soon as they are accepted (each costs
     *                       a thread and a 4-16 KB buffer); for the verbs it must exceed the largest gang, whose
     *                       members' binds each hold a connection at the barrier
     */
    public Http1Server(String name, InetSocketAddress address, SSLContext tls, Http1Handler handler, long maxBodyBytes,
                       Duration idleTimeout, int maxConnections) throws IOException {
        this(name, address, tls, false, handler, maxBodyBytes, idleTimeout, maxConnections);
    }

    /**
     * As {@link #Http1Server(String, InetSocketAddress, SSLContext, Http1Handler, long, Duration, int)};
     * {@code requireClientCertificates}: with {@code tls}, a client must present a certificate that the context's trust
     * manager accepts, or its handshake fails and the connection ends before a byte of a request is read (said in the
     * log, at most every 10 s).
     */
    public Http1Server(String name, InetSocketAddress address, SSLContext tls, boolean requireClientCertificates, Http1Handler handler,
                       long maxBodyBytes, Duration idleTimeout, int maxConnections) throws IOException {
        this(name, address, tls, requireClientCertificates, handler, maxBodyBytes, idleTimeout, DEFAULT_HEAD_TIMEOUT, maxConnections);
    }

    /**
     * As {@link #Http1Server(String, InetSocketAddress, SSLContext, boolean, Http1Handler, long, Duration, int)};
     * {@code headTimeout}: a request head (and a new connection's TLS handshake) not complete this long after its
     * first byte (after the accept, for a connection's first request) closes the connection.
     */
    public Http1Server(String name, InetSocketAddress address, SSLContext tls, boolean requireClientCertificates, Http1Handler handler,
                       long maxBodyBytes, Duration idleTimeout, Duration headTimeout, int maxConnections) throws IOException {
        if (headTimeout.isNegative() || headTimeout.isZero()) {
            throw new IllegalArgumentException(name + ": the head timeout must be positive, not " + headTimeout);
        }
        this.name = name;
        this.headTimeoutNanos = headTimeout.toNanos();
        this.tls = tls;
        this.requireClientCertificates = requireClientCertificates;
        this.maxConnections = maxConnections;
        this.handler = handler;
        this.maxBodyBytes = maxBodyBytes;
        this.idleMillis = (int) Math.min(Integer.MAX_VALUE, idleTimeout.toMillis());
        this.platformThreads = new ThreadPoolExecutor(0, PLATFORM_CONNECTIONS, PLATFORM_IDLE_SECONDS, TimeUnit.SECONDS,
                new SynchronousQueue<>(), Thread.ofPlatform().daemon().name(name + "-conn").factory());
        if (requireClientCertificates && tls == null) {
            throw new IllegalArgumentException(name + ": client certificates can only be required over TLS");
        }
        // plain sockets, TLS layered on each on its own thread: the reaper and evictions close the plain socket, which
        // ends a read at once (closing a TLS socket from another thread would first try to send close_notify)
        this.listener = new ServerSocket();
        listener.setReuseAddress(true);
        try {
            listener.bind(address, 1024);
        } catch (IOException e) {
            listener.close();
            platformThreads.shutdown();
            throw e;
        }
        this.acceptor = Thread.ofPlatform().daemon().name(name + "-accept").start(this::acceptLoop);
        this.reaper = Thread.ofPlatform().daemon().name(name + "-reaper").start(this::reapLoop);
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** Open connections now (tests read it). */
    public int connections() {
        return open.get();
    }

    /** Connections closed since start because a new one needed room while they waited for their client. */
    public long evictedConnections() {
        return evicted.sum();
    }

    /** Connections served since start: over HTTP/1.1 (plain or TLS), and over HTTP/2 (TLS clients that chose it by ALPN). */
    public long http1Connections() {
        return connections.sum();
    }

    public long http2Connections() {
        return h2Connections.sum();
    }

    /** Connections closed since start because a request head did not arrive complete in time. */
    public long headTimeouts() {
        return headTimeouts.sum();
    }

    /**
     * Read timeouts that HTTP/2 connections waited out since start: the client was quiet while answers still ran (a bind
     * at its barrier), so the connection was not idle and read on, keeping the part of a frame already read.
     */
    long http2TimeoutsWaitedOut() {
        return h2TimeoutsWaitedOut.sum();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket socket;
            try {
                socket = listener.accept();
            } catch (IOException e) {
                if (!closed) { // e.g. out of file handles: say so, and do not spin
                    LOG.log(System.Logger.Level.WARNING, name + ": accepting a connection failed: " + e.getMessage());
                    pause();
                }
                continue;
            }
            if (open.get() >= maxConnections && !evictLongestWaiting()) {
                refuse(socket);
                continue;
            }
            open.incrementAndGet();
            ConnectionPhase phase = new ConnectionPhase(socket, System.nanoTime());
            live.put(socket, phase);
            try {
                platformThreads.execute(() -> serve(phase));
            } catch (RejectedExecutionException allBusy) { // or shut down by close(): serve() then sees closed
                Thread.ofVirtual().name(name + "-conn").start(() -> serve(phase));
            }
        }
    }

    /**
     * Makes room for a new connection (accepting thread): closes the open connection that has waited longest for its
     * client, and stops counting it. False when every open connection is busy in its handler.
     */
    private boolean evictLongestWaiting() {
        ConnectionPhase oldest = null;
        long oldestSince = 0;
        for (ConnectionPhase c : live.values()) {
            ConnectionPhase.Now now = c.now();
            if (now.waitsForClient() && (oldest == null || now.since() - oldestSince < 0)) {
                oldest = c;
                oldestSince = now.since();
            }
        }
        if (oldest == null || !oldest.release()) {
            return false;
        }
        oldest.closing();
        live.remove(oldest.raw);
        open.decrementAndGet();
        closeQuietly(oldest.raw);
        evicted.increment();
        logAtMostEvery10s(lastEvictionLog, name + ": " + maxConnections + " connections are open, the limit; closed the one that"
                + " waited longest for its client to make room for a new one (" + evicted.sum() + " so since start)");
        return true;
    }

    /** Closes connections whose request head has taken longer than the head timeout; runs until {@link #close()}. */
    private void reapLoop() {
        long every = Math.max(10_000_000L, Math.min(1_000_000_000L, headTimeoutNanos / 4));
        while (!closed) {
            try {
                TimeUnit.NANOSECONDS.sleep(every);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (ConnectionPhase c : live.values()) {
                ConnectionPhase.Now phase = c.now();
                if (phase.kind() == ConnectionPhase.Kind.HEAD && now - phase.since() > headTimeoutNanos) {
                    c.closing();
                    headTimeouts.increment();
                    closeQuietly(c.raw); // its thread's read fails and it ends the connection
                }
            }
        }
    }

    private void serve(ConnectionPhase phase) {
        phase.serving(Thread.currentThread());
        Socket raw = phase.raw;
        try (raw) {
            if (closed) { // close() set it before taking its snapshot of live: this connection may not be in it
                return;
            }
            raw.setTcpNoDelay(true);
            raw.setSoTimeout(idleMillis);
            try (Socket socket = tls == null ? raw : layerTls(raw)) {
                if (socket instanceof SSLSocket secure) {
                    secure.startHandshake();
                    if (Http2Connection.ALPN.equals(secure.getApplicationProtocol())) {
                        h2Connections.increment();
                        new Http2Connection(secure, phase, handler, maxBodyBytes, maxConnections, peer(secure), () -> closed,
                                h2TimeoutsWaitedOut).serve();
                        return;
                    }
                }
                connections.increment();
                new Http1Connection(socket, phase, handler, maxBodyBytes).serve();
            }
        } catch (SSLException e) {
            if (!closed && !phase.closedFromOutside()) {
                refusedHandshake(raw, e);
            }
        } catch (SocketException e) {
            // reset by the peer, or closed by close(): nothing to answer
        } catch (IOException e) {
            if (!closed) {
                LOG.log(System.Logger.Level.DEBUG, name + ": connection ended: " + e.getMessage());
            }
        } finally {
            if (phase.release()) { // else an eviction already stopped counting it
                live.remove(raw);
                open.decrementAndGet();
            }
        }
    }

    /** The server side of TLS over an accepted socket; the handshake runs at the first read. */
    private SSLSocket layerTls(Socket raw) throws IOException {
        SSLSocket secure = (SSLSocket) tls.getSocketFactory().createSocket(raw, null, raw.getPort(), true);
        secure.setUseClientMode(false);
        secure.setNeedClientAuth(requireClientCertificates);
        ciphers.apply(secure);
        javax.net.ssl.SSLParameters parameters = secure.getSSLParameters();
        parameters.setApplicationProtocols(protocols); // HTTP/2 when the client offers it
        secure.setSSLParameters(parameters);
        return secure;
    }

    /** Whether to offer HTTP/2: unset or {@code true} yes, {@code false} no. */
    static boolean http2(String property) {
        if (property == null || property.isBlank()) {
            return true;
        }
        return switch (property.trim()) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("-D" + HTTP2_PROPERTY + "=" + property + ": expected true or false");
        };
    }

    /** The client's certificate (its CA checked by the handshake, which must be done), or null. */
    static java.security.cert.X509Certificate peer(SSLSocket secure) {
        try {
            java.security.cert.Certificate[] chain = secure.getSession().getPeerCertificates();
            return chain.length > 0 && chain[0] instanceof java.security.cert.X509Certificate x ? x : null;
        } catch (javax.net.ssl.SSLPeerUnverifiedException none) {
            return null;
        }
    }

    /** Stops accepting, closes every connection and interrupts its thread. */
    @Override
    public void close() {
        closed = true;
        closeQuietly(listener);
        platformThreads.shutdown();
        reaper.interrupt();
        live.forEach((socket, phase) -> {
            closeQuietly(socket);
            Thread thread = phase.thread();
            if (thread != null) {
                thread.interrupt();
            }
        });
        try {
            acceptor.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** TLS handshakes that failed since start (tests and metrics read it). */
    public long refusedHandshakes() {
        return refusedHandshakes.sum();
    }

    /** A failed TLS handshake: counted, and said in the log at most every 10 s (connection threads race for the turn). */
    private void refusedHandshake(Socket socket, SSLException e) {
        refusedHandshakes.increment();
        logAtMostEvery10s(lastHandshakeLog, name + ": refused a TLS connection from " + socket.getRemoteSocketAddress() + ": " + e.getMessage()
                + " (" + refusedHandshakes.sum() + " refused since start; further ones within 10 s are not logged)");
    }

    /** Logs a warning unless this kind of warning was logged in the last 10 s (threads race for the turn). */
    private static void logAtMostEvery10s(java.util.concurrent.atomic.AtomicLong lastLog, String message) {
        long now = System.nanoTime();
        long last = lastLog.get();
        if ((last == 0 || now - last > 10_000_000_000L) && lastLog.compareAndSet(last, now)) {
            LOG.log(System.Logger.Level.WARNING, message);
        }
    }

    /** Over the connection limit: closed at once, said in the log at most every 10 s. */
    private void refuse(Socket socket) {
        closeQuietly(socket);
        long now = System.nanoTime();
        if (lastRefusalLog == 0 || now - lastRefusalLog > 10_000_000_000L) {
            lastRefusalLog = now;
            LOG.log(System.Logger.Level.WARNING, name + ": " + maxConnections + " connections are open, the limit; closing new ones"
                    + " until some end");
        }
    }

    private static void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing anyway
        }
    }
}
