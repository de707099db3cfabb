package dev.muster.core.provision;

/**
 * Where a gang's request for nodes stands ({@link Provisioning} draws the transitions):
 * <pre>
 *   (none) ─need─▶ REQUESTED ─Accepted─▶ ACCEPTED ─Provisioned─▶ PROVISIONED ─gang runs─▶ DONE
 *                      │                    │                        │
 *                      └──── Failed, BookingExpired, CapacityRevoked, request deleted ──▶ FAILED
 *   FAILED ─backoff over and the gang still needs nodes─▶ REQUESTED (a new request, the next attempt)
 *   any ─gang deleted, or it no longer needs nodes before they are provisioned─▶ (none), the request deleted
 * </pre>
 */
public enum Phase {
    /** The request is being created, or exists and the autoscaler has not accepted it yet. */
    REQUESTED("Requested"),
    /** The autoscaler accepted it and is getting the nodes. */
    ACCEPTED("Accepted"),
    /** The room is there: the gang holds it and its gate may be lifted. */
    PROVISIONED("Provisioned"),
    /** The gang runs on the room (the request is kept until the gang is deleted: its pods name it). */
    DONE("Done"),
    /** The last request failed or lost its room; a new one is made once the backoff is over. */
    FAILED("Failed");

    private final String word;

    Phase(String word) {
        this.word = word;
    }

    /** The word a status text and a metric's label use. */
    public String word() {
        return word;
    }
}
