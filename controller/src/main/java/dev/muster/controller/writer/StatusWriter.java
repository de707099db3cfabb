package dev.muster.controller.writer;

import java.util.function.LongSupplier;
import dev.muster.core.time.Backoff;
import dev.muster.core.status.DesiredStatus;
import dev.muster.core.status.StatusKey;
import dev.muster.core.status.StatusSource;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Flushes the dirty set: for each due key, reads the desired status now (level-based: the latest state, not
 * one write per event), skips it when it equals what the API holds, else issues one patch within the QPS
 * budget. A failed write goes back into the dirty set with per-object exponential backoff — still one entry.
 * A flush that runs out of budget leaves the rest pending for the next one. Only the leader writes; a standby
 * keeps marking (its fold stays warm) and writes nothing.
 *
 * <p>Deletion races: an object may be deleted while its write is in flight. The fold removes it first and
 * then drops its dirty entry and its {@link LastWritten} entry; the writer records its own result first and
 * then re-reads the desired status, undoing the record when the object is gone. Whichever order the two
 * threads run in, nothing is left behind for a deleted object.
 *
 * <p>Thread-safety: {@link #flush} is serialised on {@code this} (one flush at a time, normally on the flush
 * loop's thread); {@link #setLeader} may be called from any thread and takes effect between two keys. The
 * collaborators are thread-safe.
 */
public final class StatusWriter {
    private static final Logger log = LoggerFactory.getLogger(StatusWriter.class);

    private final StatusSource source;
    private final DirtySet<StatusKey> dirty;
    private final LastWritten written;
    private final StatusPatcher patcher;
    private final TokenBucket budget;
    private final Backoff backoff;
    private final WriterMetrics metrics;
    private final LongSupplier ticker;
    private volatile boolean leader;
    private static final long FAILURE_LOG_INTERVAL = 10_000_000_000L;
    private final LogGate failureLog = new LogGate(FAILURE_LOG_INTERVAL); // guarded by this

    public StatusWriter(StatusSource source, DirtySet<StatusKey> dirty, LastWritten written, StatusPatcher patcher,
                        TokenBucket budget, Backoff backoff, WriterMetrics metrics, LongSupplier ticker) {
        this.source = Objects.requireNonNull(source, "source");
        this.dirty = Objects.requireNonNull(dirty, "dirty");
        this.written = Objects.requireNonNull(written, "written");
        this.patcher = Objects.requireNonNull(patcher, "patcher");
        this.budget = Objects.requireNonNull(budget, "budget");
        this.backoff = Objects.requireNonNull(backoff, "backoff");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
    }

    /** What one flush did. */
    public record FlushResult(int written, int skipped, int failed, boolean outOfBudget, int pendingAfter) {}

    public void setLeader(boolean leader) {
        written.setLeading(leader);
        this.leader = leader;
    }

    public boolean isLeader() {
        return leader;
    }

    public synchronized FlushResult flush() {
        int wrote = 0;
        int skipped = 0;
        int failed = 0;
        boolean outOfBudget = false;
        if (leader) {
            dirty.promoteDue(ticker.getAsLong());
            DirtySet.Entry<StatusKey> entry;
            while (leader && (entry = dirty.poll()) != null) {
                StatusKey key = entry.key();
                DesiredStatus desired = source.desired(key);
                if (desired == null) {
                    written.forget(key); // deleted after it was marked
                    continue;
                }
                DesiredStatus previous = written.get(key);
                if (previous != null && patcher.same(key, desired, previous)) {
                    skipped++;
                    metrics.skipped(key);
                    continue;
                }
                if (!budget.tryAcquire()) {
                    dirty.requeue(entry);
                    outOfBudget = true;
                    metrics.throttled();
                    break;
                }
                if (write(entry, desired, previous)) {
                    wrote++;
                } else {
                    failed++;
                }
            }
        }
        return new FlushResult(wrote, skipped, failed, outOfBudget, dirty.size());
    }

    /** At most one line per {@link #FAILURE_LOG_INTERVAL}: an API outage must not turn into one line per object. */
    private void logFailure(StatusKey key, StatusPatchException failure, long delayNanos, int attempt) { // flush lock held
        long quiet = failureLog.pass(ticker.getAsLong());
        if (quiet >= 0) {
            log.warn("status write for {} failed ({} {}): {}; retrying in {} ms (attempt {}){}", key, failure.kind(), failure.httpStatus(),
                    failure.getMessage(), delayNanos / 1_000_000, attempt, LogGate.quietSince(quiet));
        }
    }

    private boolean write(DirtySet.Entry<StatusKey> entry, DesiredStatus desired, DesiredStatus previous) {
        StatusKey key = entry.key();
        StatusPatchException failure;
        try {
            patcher.patch(key, desired, previous);
            written.written(key, desired);
            if (source.desired(key) == null) {
                written.forget(key); // deleted while the write was in flight
            }
            metrics.written(key, ticker.getAsLong() - entry.firstMarkedNanos());
            return true;
        } catch (StatusPatchException e) {
            failure = e;
        } catch (RuntimeException e) { // an adapter bug must not stop the writer: retry like any failure
            failure = new StatusPatchException(StatusPatchException.Kind.TRANSPORT, 0, null, e.toString(), e);
        }
        long delay = backoff.delayAfter(entry.attempts() + 1, failure.retryAfter()).toNanos();
        dirty.retry(entry, ticker.getAsLong() + delay);
        if (source.desired(key) == null) {
            dirty.remove(key); // deleted while the write was in flight
        }
        metrics.failed(key, failure.kind());
        logFailure(key, failure, delay, entry.attempts() + 1);
        return false;
    }
}
