package dev.muster.server.grpc;

import dev.muster.common.tls.CallerRoles;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.security.cert.X509Certificate;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Limits the preemption dry run ({@code WhatWouldItTake}), which plans under the core's lock as a preemption decision
 * does: each caller — its client certificate's subject when it shows one, else its address — may ask {@code perCaller}
 * times a second with bursts of {@code burst}, and the whole process {@code perProcess} times a second (bursts of the
 * larger of the two).
 * A call over either limit ends at once with RESOURCE_EXHAUSTED, a message saying which limit and when to retry, and
 * the wait in milliseconds in the trailer {@value #RETRY_AFTER_MS}; it never reaches the core. Other methods pass
 * untouched. Token buckets; the callers remembered are bounded ({@value #MAX_CALLERS}, the least recently seen forgotten
 * first, which at worst gives a forgotten caller a full burst again). Thread-safe (one lock, held only to count).
 */
public final class DryRunLimiter implements ServerInterceptor {
    /** The trailer that carries how long to wait before retrying, in milliseconds. */
    public static final String RETRY_AFTER_MS = "muster-retry-after-ms";
    static final Metadata.Key<String> RETRY_AFTER = Metadata.Key.of(RETRY_AFTER_MS, Metadata.ASCII_STRING_MARSHALLER);
    static final String METHOD = "WhatWouldItTake";
    static final int MAX_CALLERS = 1_024;

    /**
     * The limits: dry runs a second per caller ({@code --dry-run-rate}) and per process ({@code --dry-run-process-rate}),
     * and how many a caller may ask at once after a quiet spell ({@code --dry-run-burst}).
     */
    public record Limit(double perCaller, double perProcess, int burst) {
        public static final Limit DEFAULT = new Limit(1, 5, 5);

        public Limit {
            if (!(perCaller > 0) || !(perProcess > 0) || burst < 1) {
                throw new IllegalArgumentException("dry run limits must be positive (rates a second, burst at least 1), got "
                        + perCaller + " a caller, " + perProcess + " a process, burst " + burst);
            }
        }
    }

    private final Limit limit;
    private final LongSupplier nanoTime;
    private final Bucket process;
    private final Map<String, Bucket> callers = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Bucket> eldest) {
            return size() > MAX_CALLERS;
        }
    };

    public DryRunLimiter(Limit limit, LongSupplier nanoTime) {
        this.limit = limit;
        this.nanoTime = nanoTime;
        this.process = new Bucket(limit.perProcess(), Math.max(limit.burst(), limit.perProcess()), nanoTime.getAsLong());
    }

    /** A refusal: which limit, and how long until a call would be allowed. */
    record Refusal(String which, long retryAfterNanos) {
        String message(String caller) {
            return String.format(Locale.ROOT, "the preemption dry run is limited to %s; %s asked too often: retry in %.1f s",
                    which, caller, Math.max(0.1, retryAfterNanos / 1e9));
        }
    }

    /** Takes one call for {@code caller}, or says why not (nothing is taken then). */
    synchronized Refusal take(String caller) {
        long now = nanoTime.getAsLong();
        Bucket mine = callers.computeIfAbsent(caller, c -> new Bucket(limit.perCaller(), limit.burst(), now));
        long callerWait = mine.waitFor(now);
        long processWait = process.waitFor(now);
        if (callerWait > 0) {
            return new Refusal(rate(limit.perCaller()) + " a second per caller (--dry-run-rate, bursts of " + limit.burst() + ")", callerWait);
        }
        if (processWait > 0) {
            return new Refusal(rate(limit.perProcess()) + " a second for all callers (--dry-run-process-rate)", processWait);
        }
        mine.take();
        process.take();
        return null;
    }

    private static String rate(double r) {
        return r == Math.rint(r) ? String.valueOf((long) r) : String.valueOf(r);
    }

    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
        if (!METHOD.equals(call.getMethodDescriptor().getBareMethodName())) {
            return next.startCall(call, headers);
        }
        String caller = caller(call);
        Refusal refused = take(caller);
        if (refused != null) {
            Metadata trailers = new Metadata();
            trailers.put(RETRY_AFTER, String.valueOf(Math.max(1, refused.retryAfterNanos() / 1_000_000)));
            call.close(Status.RESOURCE_EXHAUSTED.withDescription(refused.message(caller)), trailers);
            return new ServerCall.Listener<>() {};
        }
        return next.startCall(call, headers);
    }

    /** The caller: its certificate's subject, else its address (without the port: a client's connections are one caller). */
    private static String caller(ServerCall<?, ?> call) {
        X509Certificate peer = CallerRoles.peer(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
        if (peer != null) {
            return peer.getSubjectX500Principal().getName();
        }
        SocketAddress a = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        return a instanceof InetSocketAddress i ? i.getHostString() : String.valueOf(a);
    }

    /** A token bucket: {@code rate} tokens a second up to {@code capacity}. */
    private static final class Bucket {
        private final double perNano;
        private final double capacity;
        private double tokens;
        private long at;

        Bucket(double rate, double capacity, long now) {
            this.perNano = rate / 1e9;
            this.capacity = capacity;
            this.tokens = capacity;
            this.at = now;
        }

        /** How long until a token is there (0: now), after refilling to {@code now}. */
        long waitFor(long now) {
            tokens = Math.min(capacity, tokens + (now - at) * perNano);
            at = now;
            return tokens >= 1 ? 0 : (long) Math.ceil((1 - tokens) / perNano);
        }

        void take() {
            tokens -= 1;
        }
    }
}
