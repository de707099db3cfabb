package dev.muster.controller.writer;

import java.util.function.LongSupplier;
import java.util.Objects;

/**
 * The API write budget: {@code qps} tokens a second, at most {@code burst} saved up; starts full.
 *
 * <p>This class is thread-safe: {@code this} guards {@code tokens} and {@code lastRefill}.
 */
public final class TokenBucket {
    private final double perNano;
    private final int burst;
    private final LongSupplier ticker;
    private double tokens; // guarded by this
    private long lastRefill; // guarded by this

    public TokenBucket(double qps, int burst, LongSupplier ticker) {
        if (!(qps > 0)) {
            throw new IllegalArgumentException("--api-qps must be positive, got " + qps);
        }
        if (burst < 1) {
            throw new IllegalArgumentException("--api-burst must be at least 1, got " + burst);
        }
        this.perNano = qps / 1e9;
        this.burst = burst;
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.tokens = burst;
        this.lastRefill = ticker.getAsLong();
    }

    /** Takes one token if there is one. */
    public synchronized boolean tryAcquire() {
        refill();
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        return false;
    }

    public synchronized double available() {
        refill();
        return tokens;
    }

    private void refill() {
        long now = ticker.getAsLong();
        long elapsed = now - lastRefill;
        if (elapsed > 0) {
            tokens = Math.min(burst, tokens + elapsed * perNano);
            lastRefill = now;
        }
    }
}
