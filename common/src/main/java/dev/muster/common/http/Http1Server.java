package dev.muster.common.http;

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
import javax.net.ssl.SSLServerSocket;

/**
 * Muster's HTTP/1.1 server: one thread per connection that reads a request, calls the {@link Http1Handler} on that
 * same thread and writes the answer, for as long as the client keeps the connection alive ({@link Http1Connection}
 * does the protocol). HTTPS when given an {@link SSLContext}; the TLS handshake runs on the connection's thread,
 * never on the accepting one. TCP_NODELAY on every connection (a keep-alive client that writes headers and body
 * separately would otherwise meet Nagle's algorithm against delayed ACKs, ~40 ms a request).
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
 * <p>Threads: one accepting thread; per connection one thread that alone owns the connection's state. The set of
 * live connections is a concurrent map, so {@link #close()} can close every socket and interrupt every connection
 * thread (a handler parked at the bind barrier wakes up). A connection idle for {@code idleTimeout} between requests
 * is closed; choose it longer than the clients' own idle timeout (Go's is 90 s), so the client closes first and
 * never sends a request into a connection the server is closing.
 */
public final class Http1Server implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Http1Server.class.getName());
    /** Connections served by platform threads at a time; the rest get virtual threads. */
    static final int PLATFORM_CONNECTIONS = 8;
    /** A pooled platform thread without a connection for this long ends. */
    private static final long PLATFORM_IDLE_SECONDS = 60;

    private final String name;
    private final ServerSocket listener;
    private final Http1Handler handler;
    private final long maxBodyBytes;
    private final int idleMillis;
    private final int maxConnections;
    /** Connections accepted and not yet ended: counted by the accepting thread, uncounted by the connection's. */
    private final AtomicInteger open = new AtomicInteger();
    /** Each live connection's thread, put by that thread itself when it starts serving. */
    private final Map<Socket, Thread> live = new ConcurrentHashMap<>();
    /** Up to {@link #PLATFORM_CONNECTIONS} threads; a hand-off it refuses (all busy) goes to a virtual thread. */
    private final ThreadPoolExecutor platformThreads;
    private long lastRefusalLog; // accepting thread only
    private final java.util.concurrent.atomic.AtomicLong lastHandshakeLog = new java.util.concurrent.atomic.AtomicLong();
    /** TLS handshakes that failed (a client without an accepted certificate, or not speaking TLS), since start. */
    private final java.util.concurrent.atomic.LongAdder refusedHandshakes = new java.util.concurrent.atomic.LongAdder();
    private final Thread acceptor;
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
        this.name = name;
        this.maxConnections = maxConnections;
        this.handler = handler;
        this.maxBodyBytes = maxBodyBytes;
        this.idleMillis = (int) Math.min(Integer.MAX_VALUE, idleTimeout.toMillis());
        this.platformThreads = new ThreadPoolExecutor(0, PLATFORM_CONNECTIONS, PLATFORM_IDLE_SECONDS, TimeUnit.SECONDS,
                new SynchronousQueue<>(), Thread.ofPlatform().daemon().name(name + "-conn").factory());
        if (requireClientCertificates && tls == null) {
            throw new IllegalArgumentException(name + ": client certificates can only be required over TLS");
        }
        this.listener = tls == null ? new ServerSocket() : tls.getServerSocketFactory().createServerSocket();
        if (listener instanceof SSLServerSocket secure) {
            secure.setNeedClientAuth(requireClientCertificates);
        }
        listener.setReuseAddress(true);
        try {
            listener.bind(address, 1024);
        } catch (IOException e) {
            listener.close();
            platformThreads.shutdown();
            throw e;
        }
        this.acceptor = Thread.ofPlatform().daemon().name(name + "-accept").start(this::acceptLoop);
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** Open connections now (tests read it). */
    public int connections() {
        return open.get();
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
            if (open.get() >= maxConnections) {
                refuse(socket);
                continue;
            }
            open.incrementAndGet();
            try {
                platformThreads.execute(() -> serve(socket));
            } catch (RejectedExecutionException allBusy) { // or shut down by close(): serve() then sees closed
                Thread.ofVirtual().name(name + "-conn").start(() -> serve(socket));
            }
        }
    }

    private void serve(Socket socket) {
        live.put(socket, Thread.currentThread());
        try (socket) {
            if (closed) { // close() set it before taking its snapshot of live: this connection may not be in it
                return;
            }
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(idleMillis);
            new Http1Connection(socket, handler, maxBodyBytes).serve();
        } catch (SSLException e) {
            if (!closed) {
                refusedHandshake(socket, e);
            }
        } catch (SocketException e) {
            // reset by the peer, or closed by close(): nothing to answer
        } catch (IOException e) {
            if (!closed) {
                LOG.log(System.Logger.Level.DEBUG, name + ": connection ended: " + e.getMessage());
            }
        } finally {
            live.remove(socket);
            open.decrementAndGet();
        }
    }

    /** Stops accepting, closes every connection and interrupts its thread. */
    @Override
    public void close() {
        closed = true;
        closeQuietly(listener);
        platformThreads.shutdown();
        live.forEach((socket, thread) -> {
            closeQuietly(socket);
            thread.interrupt();
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
        long now = System.nanoTime();
        long last = lastHandshakeLog.get();
        if ((last == 0 || now - last > 10_000_000_000L) && lastHandshakeLog.compareAndSet(last, now)) {
            LOG.log(System.Logger.Level.WARNING, name + ": refused a TLS connection from " + socket.getRemoteSocketAddress() + ": " + e.getMessage()
                    + " (" + refusedHandshakes.sum() + " refused since start; further ones within 10 s are not logged)");
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
