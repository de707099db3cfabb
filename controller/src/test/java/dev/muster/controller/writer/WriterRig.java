package dev.muster.controller.writer;

import dev.muster.core.time.Backoff;
import dev.muster.core.status.FoldDriver;
import dev.muster.core.status.StatusKey;
import java.time.Duration;

/** The real fold and write path with a fake API and a hand-moved ticker. Not thread-safe. */
public final class WriterRig {
    public final FakeTicker ticker = new FakeTicker();
    public final DirtySet<StatusKey> dirty = StatusLanes.dirtySet(ticker);
    public final LastWritten lastWritten = new LastWritten();
    public final FoldDriver d = new FoldDriver(new DirtyListener(dirty, lastWritten));
    public final FakeStatusPatcher api = new FakeStatusPatcher();
    public final WriterCounters counters = new WriterCounters();
    public final StatusWriter writer;

    public WriterRig(double qps, int burst) {
        writer = new StatusWriter(d.fold, dirty, lastWritten, api, new TokenBucket(qps, burst, ticker),
                new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30)), counters, ticker);
        writer.setLeader(true);
    }

    public WriterRig() {
        this(1000, 1000);
    }

    /** Advances the ticker by one flush interval (1 s) and flushes. */
    public StatusWriter.FlushResult tick() {
        ticker.advance(Duration.ofSeconds(1));
        return writer.flush();
    }

    public static StatusKey pg(String name) {
        return StatusKey.podGroup(FoldDriver.key(name));
    }

    public static StatusKey queue(String name) {
        return StatusKey.queue(name);
    }
}
