package dev.muster.controller.stream;

import dev.muster.core.time.BackoffCounter;
import dev.muster.common.rpc.LeaderRedirect;
import dev.muster.common.rpc.ProtoConversionException;
import dev.muster.common.rpc.ProtoConverters;
import dev.muster.controller.rpc.ClientTls;
import dev.muster.controller.rpc.GrpcChannels;
import dev.muster.controller.stream.StreamCursor.ListenerFailure;
import dev.muster.controller.stream.StreamCursor.ProtocolViolation;
import dev.muster.core.stream.AllocationListener;
import dev.muster.proto.v1.AllocationsGrpc;
import dev.muster.proto.v1.WatchRequest;
import dev.muster.proto.v1.WatchResponse;
import dev.muster.proto.v1.WatchStarted;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.SynchronizationContext;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows an extender's allocation stream and hands it to an {@link AllocationListener}: in order, each
 * event exactly once, snapshots when the extender says the reader must resynchronise.
 *
 * <h2>Protocol</h2>
 * Each attempt calls {@code Watch(resume_after = last applied sequence, journal_id = its journal)}. The
 * first message must be {@code started}; when it names another journal than the one the cursor belongs
 * to, a snapshot must come before any event. An event is applied only if its sequence is the last applied
 * plus one; anything else (a gap, a repeat, an event before the required snapshot, a snapshot older than
 * what was applied, a second {@code started}, a malformed message) is a protocol error: the call is
 * dropped and the client reconnects from the last applied sequence, so nothing is ever applied twice or
 * skipped. A listener that throws is treated the same way (the event is offered again after reconnecting).
 * {@link StreamCursor} owns these rules and the position; this class owns the calls, channels and reconnects.
 *
 * <h2>Reconnecting and leader redirects</h2>
 * Any end of a call — error, completion, protocol error — schedules a new attempt after an exponential
 * backoff ({@link BackoffCounter}, reset whenever a message is applied). A standby's UNAVAILABLE with a
 * {@code muster-leader-address} trailer sends the next attempt straight to that address; if that attempt
 * ends in any way, the one after goes back to the configured address (one hop, so two standbys pointing
 * at each other cannot make the client spin).
 *
 * <h2>Lifecycle</h2>
 * {@code new → start() → running (connected or reconnecting) → stop()}; a stopped client stays stopped.
 *
 * <h2>Concurrency</h2>
 * This class is thread-safe. Every state change — starting, a message, the end of a call, a reconnect
 * timer, stopping — runs as a task in one {@link SynchronizationContext}: tasks run one at a time, in
 * submission order, on whichever thread submitted them (a gRPC callback thread, the timer thread, or the
 * caller of start/stop). Fields marked "confined" are only touched inside that context. The listener is
 * therefore called one call at a time, never concurrently, each call happening-before the next; it may
 * call {@link #stop()} (the stop runs right after it returns). Each call carries a generation number, and
 * callbacks of a call that is no longer current are ignored, so a late message from a dropped call can
 * never be applied. The metrics getters read volatile copies and never wait.
 */
public final class AllocationStreamClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AllocationStreamClient.class);

    /** Opens a channel to a target ({@code host:port}); the client shuts its channels down itself. */
    @FunctionalInterface
    public interface ChannelFactory {
        ManagedChannel open(String target);

        /**
         * Production channels ({@link GrpcChannels}). With TLS, every channel — including one to a leader's
         * pod IP after a redirect — checks the server certificate against the host of
         * {@code configuredTarget} (e.g. the Service name), so one certificate for that name serves both.
         */
        static ChannelFactory netty(Optional<ClientTls> tls, String configuredTarget) {
            String authority = tls.isPresent() ? GrpcChannels.hostOf(configuredTarget) : null;
            return target -> GrpcChannels.open(target, tls, authority);
        }
    }

    private final String configuredTarget;
    private final ChannelFactory channels;
    private final ScheduledExecutorService timer;
    private final boolean ownsTimer;
    private final SynchronizationContext context =
            new SynchronizationContext((thread, e) -> LOG.error("allocation stream client task failed", e));
    private final AtomicBoolean startCalled = new AtomicBoolean();
    private final Set<ManagedChannel> liveChannels = ConcurrentHashMap.newKeySet();

    private final BackoffCounter backoff; // confined
    private boolean stopped; // confined
    private ManagedChannel configuredChannel; // confined
    private ManagedChannel redirectChannel; // confined
    private String redirectTarget; // confined; null unless following a leader redirect
    private final StreamCursor cursor; // confined; its metrics getters may be read anywhere
    private ClientCall<WatchRequest, WatchResponse> call; // confined; the current call, null between calls
    private long generation; // confined; identifies the current call
    private SynchronizationContext.ScheduledHandle pendingReconnect; // confined

    // Written only inside the context; volatile so that metrics may read them anywhere.
    private volatile boolean connected;
    private volatile String currentTarget;
    private volatile long reconnects;
    private volatile long protocolErrors;

    /**
     * A client with its own reconnect timer thread.
     *
     * @param target the extender's gRPC address as configured, e.g. {@code muster-extender:9090}
     */
    public AllocationStreamClient(String target, ChannelFactory channels, AllocationListener listener, dev.muster.core.time.Backoff backoff) {
        this(target, channels, listener, backoff, Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "muster-stream-reconnect");
            t.setDaemon(true);
            return t;
        }), true);
    }

    /** A client whose reconnect timer runs on {@code timer}, which the caller owns and shuts down. */
    public AllocationStreamClient(String target, ChannelFactory channels, AllocationListener listener, dev.muster.core.time.Backoff backoff,
            ScheduledExecutorService timer) {
        this(target, channels, listener, backoff, timer, false);
    }

    private AllocationStreamClient(String target, ChannelFactory channels, AllocationListener listener, dev.muster.core.time.Backoff backoff,
            ScheduledExecutorService timer, boolean ownsTimer) {
        this.configuredTarget = Objects.requireNonNull(target, "target");
        this.channels = Objects.requireNonNull(channels, "channels");
        this.cursor = new StreamCursor(Objects.requireNonNull(listener, "listener"));
        this.backoff = new BackoffCounter(backoff);
        this.timer = Objects.requireNonNull(timer, "timer");
        this.ownsTimer = ownsTimer;
        this.currentTarget = target;
    }

    /** Starts following the stream. */
    public void start() {
        if (!startCalled.compareAndSet(false, true)) {
            throw new IllegalStateException("allocation stream client already started");
        }
        context.execute(this::connect);
    }

    /** Stops: cancels the call and any pending reconnect, shuts the channels down. Idempotent. */
    public void stop() {
        context.execute(() -> {
            if (stopped) {
                return;
            }
            stopped = true;
            connected = false;
            if (pendingReconnect != null) {
                pendingReconnect.cancel();
                pendingReconnect = null;
            }
            ClientCall<WatchRequest, WatchResponse> c = call;
            call = null;
            generation++;
            if (c != null) {
                c.cancel("allocation stream client stopped", null);
            }
            for (ManagedChannel ch : liveChannels) {
                ch.shutdownNow();
            }
            if (ownsTimer) {
                timer.shutdownNow();
            }
        });
    }

    /**
     * {@link #stop()}, then waits up to five seconds for the channels to terminate. Call it from outside the
     * listener (from inside, the stop only runs after the listener returns, so this would wait in vain).
     */
    @Override
    public void close() throws InterruptedException {
        stop();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (ManagedChannel ch : liveChannels) {
            ch.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
    }

    /** The sequence of the last event or snapshot handed to the listener (0 before any). */
    public long lastAppliedSequence() {
        return cursor.lastApplied();
    }

    /** The journal {@link #lastAppliedSequence()} counts in ("" before the first call started). */
    public String journalId() {
        return cursor.journalId();
    }

    /** True while a call is open and has started (received {@code started}). */
    public boolean isConnected() {
        return connected;
    }

    /** How many times a new call was scheduled after the first. */
    public long reconnectCount() {
        return reconnects;
    }

    public long snapshotsApplied() {
        return cursor.snapshotsApplied();
    }

    /** Calls dropped because the server broke the protocol or the listener threw. */
    public long protocolErrors() {
        return protocolErrors;
    }

    /** The address of the current (or next) attempt: the configured one, or a leader redirect. */
    public String currentTarget() {
        return currentTarget;
    }

    // ---- everything below runs inside the synchronization context ------------------------------

    private void connect() {
        pendingReconnect = null;
        if (stopped) {
            return;
        }
        String target = redirectTarget != null ? redirectTarget : configuredTarget;
        currentTarget = target;
        ManagedChannel channel;
        try {
            channel = channelFor(target);
        } catch (RuntimeException e) {
            LOG.warn("cannot open a channel to the extender at {}: {}", target, e.toString());
            dropRedirect();
            scheduleReconnect(backoff.next());
            return;
        }
        long gen = ++generation;
        WatchRequest request = cursor.beginCall();
        ClientCall<WatchRequest, WatchResponse> c = channel.newCall(AllocationsGrpc.getWatchMethod(), CallOptions.DEFAULT);
        call = c;
        c.start(new CallListener(gen), new Metadata());
        c.sendMessage(request);
        c.halfClose();
        c.request(1);
        LOG.debug("watching allocations at {} after {} of journal \"{}\"", target, request.getResumeAfter(), request.getJournalId());
    }

    private ManagedChannel channelFor(String target) {
        if (target.equals(configuredTarget)) {
            if (configuredChannel == null) {
                configuredChannel = track(channels.open(target));
            }
            return configuredChannel;
        }
        if (redirectChannel == null) {
            redirectChannel = track(channels.open(target));
        }
        return redirectChannel;
    }

    private ManagedChannel track(ManagedChannel channel) {
        liveChannels.add(channel);
        return channel;
    }

    private void dropRedirect() {
        redirectTarget = null;
        if (redirectChannel != null) {
            redirectChannel.shutdownNow();
            liveChannels.remove(redirectChannel);
            redirectChannel = null;
        }
    }

    private void scheduleReconnect(Duration delay) {
        if (stopped) {
            return;
        }
        reconnects++; // single writer: the context
        pendingReconnect = context.schedule(this::connect, delay.toNanos(), TimeUnit.NANOSECONDS, timer);
    }

    private void onMessage(long gen, WatchResponse message) {
        if (gen != generation || stopped) {
            return; // a late message of a call we dropped
        }
        try {
            switch (message.getKindCase()) {
                case STARTED -> onStarted(message.getStarted());
                case SNAPSHOT -> cursor.onSnapshot(ProtoConverters.fromProto(message.getSnapshot()));
                case EVENT -> cursor.onEvent(ProtoConverters.fromProto(message.getEvent()));
                case KIND_NOT_SET -> throw new ProtocolViolation("a message without kind");
            }
        } catch (ProtocolViolation | ProtoConversionException e) {
            abandonCall("protocol error from " + currentTarget + ": " + e.getMessage(), e);
            return;
        } catch (ListenerFailure e) {
            abandonCall("the allocation listener failed", e.getCause());
            return;
        }
        backoff.reset();
        call.request(1);
    }

    private void onStarted(WatchStarted started) {
        long resumeAfter = cursor.lastApplied();
        cursor.onStarted(started);
        connected = true;
        LOG.info("allocation stream connected to {} (journal {}, head {}, resuming after {})", currentTarget, started.getJournalId(),
                started.getLastSequence(), resumeAfter);
    }

    private void abandonCall(String reason, Throwable cause) {
        protocolErrors++;
        LOG.warn("dropping the allocation stream call and resuming after {}: {}", cursor.lastApplied(), reason, cause);
        ClientCall<WatchRequest, WatchResponse> c = call;
        call = null;
        connected = false;
        generation++; // its onClose and any late message are ignored
        if (c != null) {
            c.cancel(reason, cause);
        }
        scheduleReconnect(backoff.next());
    }

    private void onClose(long gen, Status status, Metadata trailers) {
        if (gen != generation || stopped) {
            return;
        }
        call = null;
        connected = false;
        Optional<String> leader = LeaderRedirect.leaderAddress(status, trailers);
        boolean onRedirect = redirectTarget != null;
        if (leader.isPresent() && !onRedirect && !leader.get().equals(configuredTarget)) {
            LOG.info("{} is not the leader; following the stream to the leader at {}", configuredTarget, leader.get());
            redirectTarget = leader.get();
            scheduleReconnect(Duration.ZERO);
            return;
        }
        if (onRedirect) {
            dropRedirect();
        }
        Duration delay = backoff.next();
        LOG.warn("allocation stream from {} ended ({} {}); reconnecting to {} in {} ms", currentTarget, status.getCode(), status.getDescription(),
                configuredTarget, delay.toMillis());
        scheduleReconnect(delay);
    }

    /** gRPC callbacks for one call, forwarded into the context with the call's generation. */
    private final class CallListener extends ClientCall.Listener<WatchResponse> {
        private final long gen;

        CallListener(long gen) {
            this.gen = gen;
        }

        @Override
        public void onMessage(WatchResponse message) {
            context.execute(() -> AllocationStreamClient.this.onMessage(gen, message));
        }

        @Override
        public void onClose(Status status, Metadata trailers) {
            context.execute(() -> AllocationStreamClient.this.onClose(gen, status, trailers));
        }
    }
}
