package org.smsgw.agent.app;

import android.util.Log;
import org.smsgw.agent.core.Logger;

/** The core's log on logcat (tag smsgw-agent). */
final class AndroidLog implements Logger {
    static final String TAG = "smsgw-agent";
    static final AndroidLog INSTANCE = new AndroidLog();

    @Override
    public void info(String message) {
        Log.i(TAG, message);
    }

    @Override
    public void warn(String message, Throwable error) {
        Log.w(TAG, message, error);
    }
}
