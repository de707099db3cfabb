package dev.muster.controller;

import java.util.function.LongSupplier;
import dev.muster.controller.queues.QueueViews;
import dev.muster.controller.queues.QueueWatchHub;
import dev.muster.controller.queues.QueuesService;
import dev.muster.controller.stream.StreamTracker;
import dev.muster.controller.sync.ClusterObserver;
import dev.muster.core.time.Backoff;
import dev.muster.controller.writer.DirtyListener;
import dev.muster.controller.writer.DirtySet;
import dev.muster.controller.writer.EventRecorder;
import dev.muster.controller.writer.GangEvents;
import dev.muster.controller.writer.FlushLoop;
import dev.muster.controller.writer.LastWritten;
import dev.muster.controller.writer.StatusLanes;
import dev.muster.controller.writer.StatusPatcher;
import dev.muster.controller.writer.StatusWriter;
import dev.muster.controller.writer.TokenBucket;
import dev.muster.controller.writer.WriterMetrics;
import dev.muster.core.model.GangKey;
import dev.muster.core.status.StatusChangeFanout;
import dev.muster.core.status.StatusFolding;
import dev.muster.core.status.StatusKey;
import java.time.InstantSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's parts wired together, without transports: the fold, the dirty set, the writer (status, then Events
 * about gangs below their minimum and about preemptions), the Queues service, and the three input ports — {@link #allocations()} (the allocation stream's listener),
 * {@link #cluster()} (informer observations) and {@link #setLeading} (leader election). {@link ControllerMain}
 * connects these to gRPC, the API server and the Lease.
 *
 * <pre>
 *   starting ──cluster listed + stream synced──▶ warm (ready) ──leading──▶ writing
 *                                                    ▲                        │
 *                                                    └──── lost the Lease ────┘
 * </pre>
 * Every replica folds everything all the time (standbys stay warm and ready); only a warm leader writes. Until
 * both the first cluster list and the stream have synced the fold only gathers (it is built cold, see
 * {@link StatusFolding}); then it computes every status once from the whole picture. A replica that leads before
 * it is warm waits: writing from half a picture (say, PodGroups listed but no pods or allocation snapshot yet)
 * would flap status on every restart. While standing by, {@link LastWritten} mirrors
 * the status the informers show, so a takeover writes only the objects whose status is actually wrong.
 *
 * <p>Thread-safe: the role flags are guarded by {@code this}; every part is thread-safe on its own.
 */
public final class Controller implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Controller.class);

    /** The write path's knobs ({@code --api-qps}, {@code --api-burst}) and the per-object retry backoff. */
    public record Settings(double apiQps, int apiBurst, Backoff backoff) {
        /** Per-object retry delay after failed status writes: 500 ms doubling to 2 min. */
        public static final Backoff WRITE_BACKOFF = new Backoff(java.time.Duration.ofMillis(500), java.time.Duration.ofMinutes(2));
        public static final Settings DEFAULTS = new Settings(ControllerConfig.DEFAULT_API_QPS, ControllerConfig.DEFAULT_API_BURST, WRITE_BACKOFF);
    }

    private final StatusFolding fold;
    private final DirtySet<StatusKey> dirty;
    private final LastWritten lastWritten = new LastWritten();
    private final StatusWriter writer;
    private final GangEvents gangEvents;
    private final QueueWatchHub hub;
    private final QueuesService queues;
    private final StreamTracker stream;
    private final ClusterObserver cluster;
    private final LongSupplier ticker;
    private FlushLoop loop; // guarded by this
    private boolean leading; // guarded by this
    private boolean clusterSynced; // guarded by this
    private boolean streamSynced; // guarded by this
    private boolean warm; // guarded by this; the fold has computed status from the whole first picture
    private final List<Runnable> onReady = new ArrayList<>(); // guarded by this

    /** A controller that records no Events (the load driver, the demo, tests of status alone). */
    public Controller(Settings settings, StatusPatcher patcher, InstantSource clock, LongSupplier ticker, Executor watchExecutor,
                      WriterMetrics metrics) {
        this(settings, patcher, change -> {}, clock, ticker, watchExecutor, metrics);
    }

    /**
     * @param events where Events about gangs that fell below their minimum (or are whole again), and about preemptions
     *               (victims and preemptor), go; they share the status writes' budget
     */
    public Controller(Settings settings, StatusPatcher patcher, EventRecorder events, InstantSource clock, LongSupplier ticker,
                      Executor watchExecutor, WriterMetrics metrics) {
        StatusChangeFanout fanout = new StatusChangeFanout();
        TokenBucket budget = new TokenBucket(settings.apiQps(), settings.apiBurst(), ticker);
        this.gangEvents = new GangEvents(events, budget, this::observed, ticker);
        this.fold = new StatusFolding(clock, fanout, false, gangEvents, gangEvents); // cold until the first list and stream sync: see synced()
        this.ticker = ticker;
        this.dirty = StatusLanes.dirtySet(ticker);
        fanout.add(new DirtyListener(dirty, lastWritten));
        QueueViews views = QueueViews.of(fold);
        this.hub = new QueueWatchHub(views, watchExecutor);
        fanout.add(hub);
        this.queues = new QueuesService(views, hub);
        this.writer = new StatusWriter(fold, dirty, lastWritten, patcher, budget, settings.backoff(), metrics, ticker);
        this.stream = new StreamTracker(fold, clock, () -> synced("stream"));
        this.cluster = new ClusterObserver(fold, lastWritten, () -> synced("cluster"));
    }

    /** The listener the allocation stream client delivers to. */
    public StreamTracker allocations() {
        return stream;
    }

    /** The port the informers deliver to. */
    public ClusterObserver cluster() {
        return cluster;
    }

    public QueuesService queuesService() {
        return queues;
    }

    /** Leader election says whether this replica holds the Lease. */
    public synchronized void setLeading(boolean leading) {
        this.leading = leading;
        log.info(leading ? "leading: writing status once warm" : "standing by: folding, not writing");
        updateRole();
    }

    private void synced(String what) {
        boolean becameReady;
        synchronized (this) {
            boolean wasReady = clusterSynced && streamSynced;
            if (what.equals("stream")) {
                streamSynced = true;
            } else {
                clusterSynced = true;
            }
            becameReady = clusterSynced && streamSynced && !wasReady;
            log.info("{} synced{}", what, becameReady ? "; computing status from the whole picture" : "");
        }
        if (!becameReady) {
            return;
        }
        fold.warmUp(); // outside our lock: it calls the listeners
        List<Runnable> run;
        synchronized (this) {
            warm = true;
            updateRole();
            run = List.copyOf(onReady);
            onReady.clear();
        }
        log.info("ready: {} objects", fold.objectCount());
        run.forEach(Runnable::run);
    }

    /** Runs {@code r} once the controller is ready (at once, on this thread, if it already is). */
    public void onReady(Runnable r) {
        synchronized (this) {
            if (!warm) {
                onReady.add(r);
                return;
            }
        }
        r.run();
    }

    private void updateRole() { // lock held
        writer.setLeader(leading && warm);
        gangEvents.setLeader(leading && warm);
    }

    private boolean observed(GangKey gang) {
        return fold.desired(StatusKey.podGroup(gang)) != null;
    }

    /** Null when ready (cluster listed, stream synced, status computed), else what is missing — for /readyz. */
    public synchronized String notReadyReason() {
        if (warm) {
            return null;
        }
        if (clusterSynced && streamSynced) {
            return "computing status";
        }
        if (!clusterSynced && !streamSynced) {
            return "waiting for the first cluster list and the allocation stream";
        }
        return clusterSynced ? "waiting for the allocation stream" : "waiting for the first cluster list";
    }

    /** True when this replica writes: leading and warm. */
    public boolean writing() {
        return writer.isLeader();
    }

    /** One flush now: status writes, then Events within what is left of the budget (tests and the load driver call this instead of starting the loop). */
    public StatusWriter.FlushResult flush() {
        StatusWriter.FlushResult result = writer.flush();
        gangEvents.flush();
        return result;
    }

    /** Events waiting to be recorded (at most two per gang). */
    public int pendingEvents() {
        return gangEvents.pending();
    }

    /** Flushes every {@code interval} on a daemon thread until {@link #close}. */
    public synchronized void startFlushing(Duration interval) {
        if (loop == null) {
            loop = new FlushLoop(this::flush, interval);
            loop.start();
        }
    }

    /** Dirty entries (ready or backing off): never more than {@link #objects()}. */
    public int pendingWrites() {
        return dirty.size();
    }

    public int backingOff() {
        return dirty.backingOff();
    }

    /** How long the oldest pending change has waited to be written (0 when nothing is pending). O(pending). */
    public long oldestPendingNanos() {
        long now = ticker.getAsLong();
        return now - dirty.oldestMarkNanos(now);
    }

    /** Observed Queues and PodGroups. */
    public int objects() {
        return fold.objectCount();
    }

    public StatusFolding.Stats foldStats() {
        return fold.stats();
    }

    public int watchSubscribers() {
        return hub.subscribers();
    }

    /** For tests: the fold (read its desired status). */
    StatusFolding fold() {
        return fold;
    }

    @Override
    public synchronized void close() {
        if (loop != null) {
            loop.close();
            loop = null;
        }
    }
}
