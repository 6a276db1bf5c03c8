import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;

/**
 * Renames one framework attribute of a binary AndroidManifest.xml (what aapt wrote) into another,
 * newer one: its name in the string pool and its resource id in the resource map.
 *
 *   java ManifestAttribute.java <AndroidManifest.xml> <old name> <old id> <new name> <new id>
 *
 * Why: Debian's aapt knows the attributes of API 29 only, and `android:dataExtractionRules`
 * (API 31, 0x0101063e), which keeps the app's data out of Android 12's device transfers, is not
 * one of them. The manifest names a placeholder aapt knows and this build never otherwise uses,
 * `android:networkSecurityConfig` (0x01010527), with the rules' resource; this turns it into the
 * real attribute. Android reads attributes by resource id, in increasing order: the new id must
 * keep the element's order, which is checked (the placeholder is the application's highest).
 */
public final class ManifestAttribute {
    private static final int STRING_POOL = 0x0001;
    private static final int RESOURCE_MAP = 0x0180;
    private static final int START_ELEMENT = 0x0102;
    private static final int UTF8_FLAG = 1 << 8;

    public static void main(String[] args) throws IOException {
        if (args.length != 5) {
            System.err.println("usage: ManifestAttribute <AndroidManifest.xml> <old name> <old id> <new name> <new id>");
            System.exit(2);
        }
        byte[] bytes = Files.readAllBytes(Paths.get(args[0]));
        rename(bytes, args[1], Integer.decode(args[2]), args[3], Integer.decode(args[4]));
        Files.write(Paths.get(args[0]), bytes);
    }

    static void rename(byte[] bytes, String oldName, int oldId, String newName, int newId) {
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if (b.getShort(0) != 0x0003) fail("not a binary XML file");
        int poolAt = b.getShort(2) & 0xffff;
        if (b.getShort(poolAt) != STRING_POOL) fail("no string pool first");
        int poolSize = b.getInt(poolAt + 4);
        int count = b.getInt(poolAt + 8);
        boolean utf8 = (b.getInt(poolAt + 16) & UTF8_FLAG) != 0;
        int stringsAt = poolAt + b.getInt(poolAt + 20);
        int mapAt = poolAt + poolSize;
        if (b.getShort(mapAt) != RESOURCE_MAP) fail("no resource map after the string pool");
        int mapped = (b.getInt(mapAt + 4) - (b.getShort(mapAt + 2) & 0xffff)) / 4;
        int index = -1;
        for (int i = 0; i < count && index < 0; i++) {
            if (oldName.equals(string(b, stringsAt + b.getInt(poolAt + (b.getShort(poolAt + 2) & 0xffff) + 4 * i), utf8))) index = i;
        }
        if (index < 0 || index >= mapped) fail(oldName + " is not an attribute of the manifest");
        int idAt = mapAt + (b.getShort(mapAt + 2) & 0xffff) + 4 * index;
        if (b.getInt(idAt) != oldId) fail(String.format("%s has the id 0x%08x, not 0x%08x", oldName, b.getInt(idAt), oldId));
        if (newName.length() > oldName.length() || newName.length() >= 0x80) fail(newName + " does not fit in the place of " + oldName);
        int at = stringsAt + b.getInt(poolAt + (b.getShort(poolAt + 2) & 0xffff) + 4 * index);
        // The same place, a shorter string: its length, its characters, its terminator; what follows is never read.
        if (utf8) {
            byte[] chars = newName.getBytes(StandardCharsets.UTF_8);
            b.put(at, (byte) newName.length());
            b.put(at + 1, (byte) chars.length);
            for (int i = 0; i < chars.length; i++) b.put(at + 2 + i, chars[i]);
            b.put(at + 2 + chars.length, (byte) 0);
        } else {
            b.putShort(at, (short) newName.length());
            for (int i = 0; i < newName.length(); i++) b.putShort(at + 2 + 2 * i, (short) newName.charAt(i));
            b.putShort(at + 2 + 2 * newName.length(), (short) 0);
        }
        b.putInt(idAt, newId);
        checkOrder(b, mapAt + b.getInt(mapAt + 4), mapAt, mapped);
    }

    /** Every element's framework attributes still come in increasing resource id. */
    private static void checkOrder(ByteBuffer b, int from, int mapAt, int mapped) {
        for (int at = from; at < b.limit(); at += b.getInt(at + 4)) {
            if (b.getShort(at) != START_ELEMENT) continue;
            int ext = at + (b.getShort(at + 2) & 0xffff);
            int attrStart = b.getShort(ext + 8) & 0xffff;
            int attrSize = b.getShort(ext + 10) & 0xffff;
            int attrCount = b.getShort(ext + 12) & 0xffff;
            long last = -1;
            for (int i = 0; i < attrCount; i++) {
                int name = b.getInt(ext + attrStart + i * attrSize + 4);
                if (name < 0 || name >= mapped) continue;
                long id = b.getInt(mapAt + (b.getShort(mapAt + 2) & 0xffff) + 4 * name) & 0xffffffffL;
                if (id < last) fail("the attributes of an element are no longer in increasing id order");
                last = id;
            }
        }
    }

    private static String string(ByteBuffer b, int at, boolean utf8) {
        if (utf8) {
            int length = b.get(at + 1) & 0xff; // bytes; the names are ASCII and short
            byte[] chars = new byte[length];
            for (int i = 0; i < length; i++) chars[i] = b.get(at + 2 + i);
            return new String(chars, StandardCharsets.UTF_8);
        }
        int length = b.getShort(at) & 0xffff;
        StringBuilder s = new StringBuilder(length);
        for (int i = 0; i < length; i++) s.append((char) b.getShort(at + 2 + 2 * i));
        return s.toString();
    }

    private static void fail(String why) {
        throw new IllegalStateException("ManifestAttribute: " + why);
    }
}
