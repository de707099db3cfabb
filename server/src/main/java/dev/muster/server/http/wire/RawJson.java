package dev.muster.server.http.wire;

/**
 * A JSON value as it appeared in a request body: {@code source[start, end)}. Lets an answer repeat part
 * of the request verbatim (e.g. the {@code NodeNames} array when every node passes) instead of encoding
 * it again. Refers to the body array: the body must not change while this is in use.
 */
record RawJson(byte[] source, int start, int end) {
    void writeTo(JsonOutput out) {
        out.bytes(source, start, end - start);
    }
}
