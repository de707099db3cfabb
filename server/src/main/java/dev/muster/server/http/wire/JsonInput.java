package dev.muster.server.http.wire;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One request body being read: a jackson-core streaming parser over the body bytes plus the helpers
 * every reader shares (type checks, skipping, duplicate keys, errors that name the JSON path).
 *
 * <p>Confined to the thread decoding the request; not thread-safe. The shared {@link JsonFactory} is
 * thread-safe.
 *
 * <p>Readers follow one convention: a {@code read...} method is called with the parser positioned on
 * the first token of the value it reads and returns with the parser on that value's last token.
 */
final class JsonInput implements AutoCloseable {
    /** Deepest nesting accepted; deeper bodies are rejected before any recursion could matter. */
    static final int MAX_DEPTH = 256;
    /** Paths in messages are cut here (a deeply nested body would otherwise make a huge message). */
    private static final int MAX_PATH_LENGTH = 200;

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
            .build();

    private final JsonParser parser;
    private final byte[] body;
    private final int offset;
    private final int end;
    /** Set when a scan read the body to its end ({@link #passArray}): no key follows, nothing trails. */
    private boolean readToEnd;
    /** With {@link #readToEnd}: the index just after the scanned array (the parser stayed on its START_ARRAY). */
    private int scannedEnd;

    private JsonInput(JsonParser parser, byte[] body, int offset, int end) {
        this.parser = parser;
        this.body = body;
        this.offset = offset;
        this.end = end;
    }

    /**
     * Opens {@code body[offset, offset+length)} for reading, positioned on the root START_OBJECT.
     * Rejects bodies that are empty, are not an object, or are not UTF-8 (jackson would otherwise
     * auto-detect UTF-16/32 from NUL bytes, and byte offsets of node objects would be lost).
     */
    static JsonInput open(byte[] body, int offset, int length) {
        Objects.requireNonNull(body, "body");
        Objects.checkFromIndexSize(offset, length, body.length);
        int first = offset;
        int end = offset + length;
        while (first < end && isWhitespace(body[first])) {
            first++;
        }
        if (first == end) {
            throw new WireFormatException("body is empty");
        }
        if (body[first] != '{') {
            throw new WireFormatException(describeStart(body[first]));
        }
        for (int i = offset; i < Math.min(end, offset + 4); i++) {
            if (body[i] == 0) {
                throw new WireFormatException("body is not JSON: NUL byte at byte " + (i - offset));
            }
        }
        JsonParser parser;
        try {
            parser = FACTORY.createParser(body, offset, length);
        } catch (IOException e) {
            throw new WireFormatException("body is not JSON: " + e.getMessage(), e);
        }
        JsonInput in = new JsonInput(parser, body, offset, end);
        try {
            in.next();
        } catch (IOException e) {
            throw in.wrap(e);
        }
        return in;
    }

    private static boolean isWhitespace(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == '\r';
    }

    private static String describeStart(byte b) {
        return switch (b) {
            case '[' -> "body must be a JSON object, got an array";
            case '"' -> "body must be a JSON object, got a string";
            case 'n' -> "body must be a JSON object, got null";
            case 't', 'f' -> "body must be a JSON object, got a boolean";
            case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9' -> "body must be a JSON object, got a number";
            default -> String.format("body is not JSON: it starts with byte 0x%02X", b & 0xFF);
        };
    }

    JsonToken next() throws IOException {
        return parser.nextToken();
    }

    JsonToken current() {
        return parser.currentToken();
    }

    /** The field name while on a FIELD_NAME token (canonicalized by jackson, cheap to compare). */
    String fieldName() throws IOException {
        return parser.currentName();
    }

    /** On a FIELD_NAME: skips its value, whatever it is. */
    void skipFieldValue() throws IOException {
        parser.nextToken();
        parser.skipChildren();
    }

    /** On a value token: skips to that value's last token. */
    void skipValue() throws IOException {
        parser.skipChildren();
    }

    /** Advances to the next field of an object, or returns false at its END_OBJECT. */
    boolean nextField() throws IOException {
        if (readToEnd) {
            return false;
        }
        JsonToken t = parser.nextToken();
        if (t == JsonToken.FIELD_NAME) {
            return true;
        }
        if (t == JsonToken.END_OBJECT) {
            return false;
        }
        throw error("expected a key or the end of the object, got " + describe(t));
    }

    /** Advances to the next element of an array, or returns false at its END_ARRAY. */
    boolean nextElement() throws IOException {
        JsonToken t = parser.nextToken();
        if (t == JsonToken.END_ARRAY) {
            return false;
        }
        if (t == null || t == JsonToken.FIELD_NAME || t == JsonToken.END_OBJECT) {
            throw error("expected a value or the end of the array, got " + describe(t));
        }
        return true;
    }

    /** On a value: true for an object, false for null; anything else is an error. */
    boolean objectOrNull(String what) {
        JsonToken t = parser.currentToken();
        if (t == JsonToken.START_OBJECT) {
            return true;
        }
        if (t == JsonToken.VALUE_NULL) {
            return false;
        }
        throw typeError(what, t);
    }

    /** On a value: true for an array, false for null; anything else is an error. */
    boolean arrayOrNull(String what) {
        JsonToken t = parser.currentToken();
        if (t == JsonToken.START_ARRAY) {
            return true;
        }
        if (t == JsonToken.VALUE_NULL) {
            return false;
        }
        throw typeError(what, t);
    }

    /**
     * After a scanned array whose {@code ]} ends before {@code after}: when the array is a key of the root object and
     * only that object's {@code }} and whitespace follow (kube-scheduler sends {@code NodeNames} last), the body is
     * read to its end without the parser; otherwise the parser passes the array itself.
     */
    void passArray(int after) throws IOException {
        int close = skipWhitespace(after);
        JsonStreamContext object = parser.getParsingContext().getParent();
        if (close < end && body[close] == '}' && skipWhitespace(close + 1) == end && object != null && object.getParent() != null
                && object.getParent().inRoot()) {
            readToEnd = true;
            scannedEnd = after;
        } else {
            parser.skipChildren();
        }
    }

    /** The first index from {@code at} that is not JSON whitespace, or the body's end. */
    int skipWhitespace(int at) {
        while (at < end && isWhitespace(body[at])) {
            at++;
        }
        return at;
    }

    /** On a value: its text for a string, null for null; anything else is an error. */
    String stringOrNull() throws IOException {
        JsonToken t = parser.currentToken();
        if (t == JsonToken.VALUE_STRING) {
            return parser.getText();
        }
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        throw typeError("a string", t);
    }

    /** On a value: a JSON integer that fits 32 bits, or {@code absent} for null. */
    int int32OrNull(int absent) throws IOException {
        JsonToken t = parser.currentToken();
        if (t == JsonToken.VALUE_NULL) {
            return absent;
        }
        if (t != JsonToken.VALUE_NUMBER_INT) {
            throw typeError("an integer", t);
        }
        if (parser.getNumberType() != JsonParser.NumberType.INT) {
            throw error("integer " + abbreviate(parser.getText()) + " does not fit in 32 bits");
        }
        return parser.getIntValue();
    }

    /** On a value: a JSON integer that fits 64 bits, or {@code absent} for null. */
    long int64OrNull(long absent) throws IOException {
        JsonToken t = parser.currentToken();
        if (t == JsonToken.VALUE_NULL) {
            return absent;
        }
        if (t != JsonToken.VALUE_NUMBER_INT) {
            throw typeError("an integer", t);
        }
        JsonParser.NumberType type = parser.getNumberType();
        if (type != JsonParser.NumberType.INT && type != JsonParser.NumberType.LONG) {
            throw error("integer " + abbreviate(parser.getText()) + " does not fit in 64 bits");
        }
        return parser.getLongValue();
    }

    /** The text of the current scalar token (numbers keep their literal spelling). */
    String text() throws IOException {
        return parser.getText();
    }

    /** Marks {@code bit} seen in {@code seen}, or fails with "duplicate key" if it already was. */
    int markSeen(int seen, int bit) throws IOException {
        if ((seen & bit) != 0) {
            throw error("duplicate key \"" + abbreviate(parser.currentName()) + "\"");
        }
        return seen | bit;
    }

    /** Absolute offset in the body array of the first byte of the current token. */
    int tokenStart() {
        long at = parser.currentTokenLocation().getByteOffset();
        if (at < 0) {
            throw new IllegalStateException("parser lost byte offsets");
        }
        return offset + (int) at;
    }

    /** The index in {@link #body()} just after the value just read (an array the parser may not have passed, too). */
    int valueEnd() {
        return readToEnd ? scannedEnd : tokenStart() + 1;
    }

    byte[] body() {
        return body;
    }

    /** The index in {@link #body()} just after the body. */
    int end() {
        return end;
    }

    /** After the root object: anything but the end of input is an error. */
    void expectEnd() throws IOException {
        if (readToEnd) {
            return;
        }
        JsonToken t;
        try {
            t = parser.nextToken();
        } catch (JsonProcessingException e) {
            long at = e.getLocation() == null ? -1 : e.getLocation().getByteOffset();
            throw new WireFormatException("trailing data after the JSON object" + (at >= 0 ? " at byte " + at : "")
                    + ": " + firstLine(e.getOriginalMessage()), e);
        }
        if (t != null) {
            throw new WireFormatException("trailing data after the JSON object: " + describe(t) + " at byte "
                    + parser.currentTokenLocation().getByteOffset());
        }
    }

    WireFormatException typeError(String expected, JsonToken got) {
        return error("must be " + expected + ", got " + describe(got));
    }

    /** An error about the current position: "path: problem", or just "problem" at the root. */
    WireFormatException error(String problem) {
        String path = path();
        return new WireFormatException(path.isEmpty() ? problem : path + ": " + problem);
    }

    /** Turns a jackson failure into a WireFormatException naming where it happened. */
    WireFormatException wrap(IOException e) {
        String path = path();
        String where = path.isEmpty() ? "" : " in " + path;
        if (e instanceof StreamConstraintsException sce) {
            return new WireFormatException("body exceeds a parser limit" + where + ": " + sce.getOriginalMessage(), e);
        }
        if (e instanceof JsonProcessingException jpe) {
            long at = jpe.getLocation() == null ? -1 : jpe.getLocation().getByteOffset();
            String atByte = at >= 0 ? " at byte " + at : "";
            return new WireFormatException("body is not JSON" + atByte + where + ": " + firstLine(jpe.getOriginalMessage()), e);
        }
        return new WireFormatException("body is not JSON" + where + ": " + e.getMessage(), e);
    }

    /** The JSON path of the current position, e.g. {@code Pod.spec.containers[0].resources}. */
    String path() {
        List<String> parts = new ArrayList<>();
        for (JsonStreamContext c = parser.getParsingContext(); c != null && !c.inRoot(); c = c.getParent()) {
            if (c.inArray()) {
                if (c.hasCurrentIndex()) {
                    parts.add("[" + c.getCurrentIndex() + "]");
                }
            } else if (c.getCurrentName() != null) {
                parts.add("." + abbreviate(c.getCurrentName()));
            }
        }
        StringBuilder sb = new StringBuilder();
        for (int i = parts.size() - 1; i >= 0; i--) {
            sb.append(parts.get(i));
        }
        String path = sb.length() > 0 && sb.charAt(0) == '.' ? sb.substring(1) : sb.toString();
        return path.length() <= MAX_PATH_LENGTH ? path : path.substring(0, MAX_PATH_LENGTH - 3) + "...";
    }

    static String describe(JsonToken t) {
        if (t == null) {
            return "the end of the body";
        }
        return switch (t) {
            case START_OBJECT -> "an object";
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            case END_OBJECT -> "the end of an object";
            case END_ARRAY -> "the end of an array";
            case FIELD_NAME -> "a key";
            default -> t.name();
        };
    }

    static String abbreviate(String s) {
        if (s == null) {
            return "null";
        }
        return s.length() <= 64 ? s : s.substring(0, 61) + "...";
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "malformed";
        }
        int nl = s.indexOf('\n');
        String line = nl < 0 ? s : s.substring(0, nl);
        // jackson names the (redacted) source in nested locations; the caller knows the source
        return line.replaceAll("\\[Source: [^;\\]]*; ", "[");
    }

    @Override
    public void close() {
        try {
            parser.close();
        } catch (IOException ignored) {
            // a byte-array parser has nothing to fail on close
        }
    }
}
