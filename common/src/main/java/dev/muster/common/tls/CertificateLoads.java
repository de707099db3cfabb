package dev.muster.common.tls;

/**
 * The loads of {@link CertificateFiles} swapped together: the one in use, the one before it (null at first; kept for a
 * handshake that chose its alias before a reload) and the one a server presents, which is {@code current} unless a CA
 * change is held, since {@code heldSince}. Immutable: each change gives a new value.
 *
 * <p>The hold's rule ({@link #changedTo}): when the files change to a certificate that none of the CAs trusted by the
 * presented load signs, a server whose peers read their CA only at their start keeps presenting that load until
 * {@link #released()}; a leaf renewed by the same CA, or a new CA its peers already trusted (a CA file that held both
 * before the new certificate was used), is presented at once.
 */
record CertificateLoads(CertificateLoad current, CertificateLoad previous, CertificateLoad presented, long heldSince) {
    /** The first load, presented at once. */
    static CertificateLoads first(CertificateLoad load) {
        return new CertificateLoads(load, null, load, 0);
    }

    boolean holding() {
        return presented != current;
    }

    /** Whether a hold begun at {@link #heldSince} has lasted {@code longestNanos} at {@code now}. */
    boolean heldFor(long longestNanos, long now) {
        return holding() && now - heldSince - longestNanos >= 0;
    }

    /**
     * After the files changed to {@code fresh}: the hold begins (or goes on, from when it began) when {@code hold} and
     * no CA the presented load trusts signs the fresh certificate; else the fresh load is presented.
     */
    CertificateLoads changedTo(CertificateLoad fresh, boolean hold, long now) {
        if (hold && presented.cas() != null && !presented.cas().signsAny(fresh.chain())) {
            return new CertificateLoads(fresh, current, presented, holding() ? heldSince : now);
        }
        return new CertificateLoads(fresh, current, fresh, 0);
    }

    /** The hold ended: the current load is presented. */
    CertificateLoads released() {
        return new CertificateLoads(current, previous, current, 0);
    }

    /** The current load trusting {@code cas} instead (the replaced CAs dropped); a hold goes on as it was. */
    CertificateLoads currentTrusting(CaTrust cas) {
        CertificateLoad now = current.trusting(cas);
        return new CertificateLoads(now, previous, holding() ? presented : now, heldSince);
    }

    /** The load {@code alias} names, if it is still kept. */
    CertificateLoad byAlias(String alias) {
        for (CertificateLoad l : new CertificateLoad[] {current, presented, previous}) {
            if (l != null && l.alias().equals(alias)) {
                return l;
            }
        }
        return null;
    }
}
