package org.smsgw.agent.app;

import android.app.Activity;
import android.content.Intent;
import android.content.pm.PackageManager;
import android.hardware.Camera;
import android.os.Bundle;
import android.os.Handler;
import android.os.HandlerThread;
import android.view.Gravity;
import android.view.SurfaceHolder;
import android.view.SurfaceView;
import android.widget.FrameLayout;
import android.widget.TextView;
import com.google.zxing.BinaryBitmap;
import com.google.zxing.DecodeHintType;
import com.google.zxing.PlanarYUVLuminanceSource;
import com.google.zxing.Result;
import com.google.zxing.common.HybridBinarizer;
import com.google.zxing.qrcode.QRCodeReader;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Scans the dashboard's pairing QR code: the old android.hardware.Camera preview (CameraX is
 * Google Maven only), each frame's luminance decoded by ZXing's QR reader off the main thread.
 * Returns the payload as the result's {@link #EXTRA_PAYLOAD}.
 */
public final class ScanActivity extends Activity implements SurfaceHolder.Callback, Camera.PreviewCallback {
    static final String EXTRA_PAYLOAD = "payload";
    private static final int CAMERA_REQUEST = 1;

    private Camera camera;
    private SurfaceView preview;
    private HandlerThread decoderThread;
    private Handler decoder;
    private final QRCodeReader reader = new QRCodeReader();
    private final Map<DecodeHintType, Object> hints = new EnumMap<DecodeHintType, Object>(DecodeHintType.class);
    private volatile boolean done;

    @Override
    protected void onCreate(Bundle state) {
        super.onCreate(state);
        hints.put(DecodeHintType.TRY_HARDER, Boolean.TRUE);
        FrameLayout root = new FrameLayout(this);
        preview = new SurfaceView(this);
        root.addView(preview);
        TextView hint = new TextView(this);
        hint.setText("Point the camera at the QR code on the dashboard's Phones page");
        hint.setTextColor(0xFFFFFFFF);
        hint.setBackgroundColor(0x99000000);
        hint.setPadding(24, 24, 24, 24);
        root.addView(hint, new FrameLayout.LayoutParams(FrameLayout.LayoutParams.MATCH_PARENT,
                FrameLayout.LayoutParams.WRAP_CONTENT, Gravity.BOTTOM));
        setContentView(root);
        preview.getHolder().addCallback(this);
    }

    @Override
    protected void onResume() {
        super.onResume();
        decoderThread = new HandlerThread("qr-decoder");
        decoderThread.start();
        decoder = new Handler(decoderThread.getLooper());
        if (checkSelfPermission(android.Manifest.permission.CAMERA) != PackageManager.PERMISSION_GRANTED) {
            requestPermissions(new String[] {android.Manifest.permission.CAMERA}, CAMERA_REQUEST);
        } else if (preview.getHolder().getSurface().isValid()) {
            openCamera(preview.getHolder());
        }
    }

    @Override
    public void onRequestPermissionsResult(int requestCode, String[] permissions, int[] results) {
        if (requestCode != CAMERA_REQUEST) return;
        if (results.length > 0 && results[0] == PackageManager.PERMISSION_GRANTED) {
            if (preview.getHolder().getSurface().isValid()) openCamera(preview.getHolder());
        } else {
            // Without the camera, the pairing URL or the password can still be typed.
            setResult(RESULT_CANCELED);
            finish();
        }
    }

    @Override
    protected void onPause() {
        closeCamera();
        decoderThread.quitSafely();
        super.onPause();
    }

    @Override
    public void surfaceCreated(SurfaceHolder holder) {
        if (checkSelfPermission(android.Manifest.permission.CAMERA) == PackageManager.PERMISSION_GRANTED) openCamera(holder);
    }

    @Override
    public void surfaceChanged(SurfaceHolder holder, int format, int width, int height) {
    }

    @Override
    public void surfaceDestroyed(SurfaceHolder holder) {
        closeCamera();
    }

    private void openCamera(SurfaceHolder holder) {
        if (camera != null) return;
        try {
            camera = Camera.open();
            if (camera == null) {
                finish();
                return;
            }
            Camera.Parameters params = camera.getParameters();
            List<String> focus = params.getSupportedFocusModes();
            if (focus != null && focus.contains(Camera.Parameters.FOCUS_MODE_CONTINUOUS_PICTURE)) {
                params.setFocusMode(Camera.Parameters.FOCUS_MODE_CONTINUOUS_PICTURE);
            }
            camera.setParameters(params);
            camera.setDisplayOrientation(90);
            camera.setPreviewDisplay(holder);
            camera.startPreview();
            camera.setOneShotPreviewCallback(this);
        } catch (Exception e) {
            AndroidLog.INSTANCE.warn("the camera could not start", e);
            closeCamera();
            finish();
        }
    }

    private void closeCamera() {
        if (camera == null) return;
        camera.setPreviewCallback(null);
        camera.stopPreview();
        camera.release();
        camera = null;
    }

    @Override
    public void onPreviewFrame(final byte[] data, final Camera cam) {
        if (done || camera == null) return;
        final Camera.Size size = cam.getParameters().getPreviewSize();
        decoder.post(new Runnable() {
            @Override
            public void run() {
                final String payload = decode(data, size.width, size.height);
                runOnUiThread(new Runnable() {
                    @Override
                    public void run() {
                        if (payload != null && !done) {
                            done = true;
                            setResult(RESULT_OK, new Intent().putExtra(EXTRA_PAYLOAD, payload));
                            finish();
                        } else if (camera != null) {
                            camera.setOneShotPreviewCallback(ScanActivity.this);
                        }
                    }
                });
            }
        });
    }

    /** The QR code in an NV21 preview frame (its first width x height bytes are the luminance). */
    private String decode(byte[] data, int width, int height) {
        try {
            PlanarYUVLuminanceSource source = new PlanarYUVLuminanceSource(data, width, height, 0, 0, width, height, false);
            Result result = reader.decode(new BinaryBitmap(new HybridBinarizer(source)), hints);
            return result.getText();
        } catch (Exception e) {
            return null; // no code in this frame
        } finally {
            reader.reset();
        }
    }
}
