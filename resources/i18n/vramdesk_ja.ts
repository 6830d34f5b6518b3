<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ja_JP">
<context>
    <name>BoundForm</name>
    <message>
        <location filename="../../vramdesk/gui/forms/binding.py" line="120"/>
        <source>a whole number from {0} to {1}</source>
        <extracomment>Background of a field the core refused (a palette colour keeps the native spin arrows). Longest error text shown in a form (the full text is in the tooltip). Longest unbroken run in a shown error before a zero-width space lets it wrap. InputError field names that are shown by a widget of another name. Whether the form shows its refusals on its own error line (a form on its own); the window&apos;s form column says them all below its fields instead (form_column.py). Each field&apos;s row label as the window shows it (``Context (tokens per sequence)``).</extracomment>
        <translation>{0} から {1} までの整数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/binding.py" line="122"/>
        <source>; empty: {0}</source>
        <translation>（空欄: {0}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/binding.py" line="139"/>
        <source>a number from {0:g} to {1:g}</source>
        <translation>{0:g} から {1:g} までの数</translation>
    </message>
</context>
<context>
    <name>BreakdownChart</name>
    <message>
        <location filename="../../vramdesk/gui/chart/breakdown.py" line="71"/>
        <source>estimate (per GPU)</source>
        <extracomment>Colours of the parts (weights, KV cache, activations, overhead), colour-blind safe (Okabe-Ito). The recurrent state of hybrid models (Mamba, gated DeltaNet), drawn only when present. 0: the next turn of the event loop (coalesces a burst without waiting). Pixels between the capacity label&apos;s anchor and the plot area&apos;s right edge. x range of the plot: the bar (centred on 0) in the left part, room on its right for the capacity and free-memory labels, which sit at the right end of their lines.</extracomment>
        <translation>見積もり（GPU あたり）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/chart/breakdown.py" line="179"/>
        <source>total {0}</source>
        <translation>合計 {0}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/chart/breakdown.py" line="188"/>
        <source>memory per GPU ({0})</source>
        <translation>メモリ/GPU（{0}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/chart/breakdown.py" line="270"/>
        <source>local free</source>
        <translation>ローカルの空き</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/chart/breakdown.py" line="281"/>
        <source>{0} · {1} weights · {2} tokens x {3} · {4} · {5}</source>
        <translation>{0} · 重み {1} · {2} トークン x {3} · {4} · {5}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/chart/breakdown.py" line="282"/>
        <source>custom model</source>
        <translation>カスタムモデル</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/chart/breakdown.py" line="295"/>
        <source>local GPU {0} ({1})</source>
        <translation>ローカル GPU {0}（{1}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/chart/breakdown.py" line="296"/>
        <source>custom</source>
        <translation>指定容量</translation>
    </message>
</context>
<context>
    <name>CalibrateDialog</name>
    <message>
        <location filename="../../vramdesk/gui/dialogs/calibrate.py" line="91"/>
        <source>Calibrate from an engine log</source>
        <extracomment>At most this many characters of pasted text are parsed: the core&apos;s cap on a log file.</extracomment>
        <translation>エンジンのログから較正</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/calibrate.py" line="101"/>
        <source>Load that model</source>
        <translation>そのモデルを読み込む</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/calibrate.py" line="106"/>
        <source>Paste a vLLM, SGLang, llama.cpp or Ollama start-up log here</source>
        <translation>vLLM・SGLang・llama.cpp・Ollama の起動ログをここに貼り付けてください</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/calibrate.py" line="108"/>
        <source>Open log…</source>
        <translation>ログを開く…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/calibrate.py" line="118"/>
        <source>Figure</source>
        <translation>数値</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/calibrate.py" line="118"/>
        <source>Measured</source>
        <translation>実測</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/calibrate.py" line="118"/>
        <source>vramdesk</source>
        <translation>vramdesk</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/calibrate.py" line="118"/>
        <source>Difference</source>
        <translation>差</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/calibrate.py" line="130"/>
        <source>Preset name</source>
        <translation>プリセット名</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/calibrate.py" line="131"/>
        <source>Save as calibrated runtime</source>
        <translation>較正済みランタイムとして保存</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/calibrate.py" line="196"/>
        <source>Open engine log</source>
        <translation>エンジンのログを開く</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/calibrate.py" line="196"/>
        <source>Logs (*.log *.txt);;All files (*)</source>
        <translation>ログ (*.log *.txt);;すべてのファイル (*)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/calibrate.py" line="220"/>
        <source>Saved runtime preset “{0}”</source>
        <translation>ランタイムプリセット「{0}」を保存しました</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/calibrate.py" line="240"/>
        <source>No log yet</source>
        <translation>ログはまだありません</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/calibrate.py" line="259"/>
        <source>This log is about {0}, not the model shown ({1}): its differences compare two models.</source>
        <translation>このログは表示中のモデル（{1}）ではなく {0} のものです。差は二つの別のモデルを比べています。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/calibrate.py" line="261"/>
        <source>another model</source>
        <translation>別のモデル</translation>
    </message>
</context>
<context>
    <name>CompareTab</name>
    <message>
        <location filename="../../vramdesk/gui/tabs/compare.py" line="226"/>
        <source>This model: {0}</source>
        <translation>このモデル: {0}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/compare.py" line="252"/>
        <source>memory per GPU ({0})</source>
        <translation>メモリ/GPU（{0}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/compare.py" line="169"/>
        <source>capacity {0}</source>
        <extracomment>Thickness of a model&apos;s bar, in rows (the rest of its row is the gap to the next) ... ... and at most this many pixels: a tall plot keeps bars of a bar&apos;s weight, not slabs. The stacked parts, left to right (a hybrid&apos;s recurrent state is drawn with its KV cache). The widest a model name may be before it is wrapped, as a share of the plot&apos;s width.</extracomment>
        <translation>容量 {0}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/compare.py" line="323"/>
        <source>Model</source>
        <translation>モデル</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/compare.py" line="325"/>
        <source>Error</source>
        <translation>エラー</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/compare.py" line="326"/>
        <source>Verdict</source>
        <translation>判定</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/compare.py" line="330"/>
        <source>fits</source>
        <translation>収まる</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/compare.py" line="331"/>
        <source>tight</source>
        <translation>ぎりぎり</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/compare.py" line="332"/>
        <source>does not fit</source>
        <translation>収まらない</translation>
    </message>
</context>
<context>
    <name>Core</name>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="26"/>
        <source>Fits: {shape} need {need} of the {budget} usable for KV cache and activations ({spare} to spare)</source>
        <translation>収まります: {shape} に必要な {need}（KV キャッシュと活性化に使える {budget}、余裕 {spare}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="27"/>
        <source>Tight: {shape} fit the {budget} usable for KV cache and activations, but the estimated total {total} exceeds the {capacity} card</source>
        <translation>ぎりぎり: {shape} は KV キャッシュと活性化に使える {budget} に収まりますが、推定合計 {total} が容量 {capacity} を超えます</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="28"/>
        <source>Tight: {shape} fit the {budget} usable for KV cache and activations with only {spare} to spare</source>
        <translation>ぎりぎり: {shape} は KV キャッシュと活性化に使える {budget} に収まりますが、余裕は {spare} だけです</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="29"/>
        <source>Does not fit: {shape} need {need}, but only {budget} is usable for KV cache and activations ({short} short)</source>
        <translation>収まりません: {shape} に {need} 必要ですが、KV キャッシュと活性化に使えるのは {budget} だけです（{short} 不足）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="30"/>
        <source>Does not fit: the weights alone ({weights}) exceed the {capacity} card by {over}</source>
        <translation>収まりません: 重みだけ（{weights}）で容量 {capacity} を {over} 超えています</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="31"/>
        <source>Does not fit: weights and reserved memory leave no room for the KV cache ({over} over what the engine may use)</source>
        <translation>収まりません: 重みと予約メモリで KV キャッシュの余地がありません（エンジンが使える量を {over} 超過）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="32"/>
        <source>Estimated total {total} vs capacity {capacity}: {relation} (forward estimate, overhead included)</source>
        <translation>推定合計 {total}、容量 {capacity}: {relation}（順方向の見積もり、オーバーヘッド込み）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="33"/>
        <source>Estimated total {total} is within the {capacity} card, but the engine keeps {held} of it from the KV cache and activations (its memory fraction and reserved memory), so what is usable for them is short</source>
        <translation>推定合計 {total} は容量 {capacity} に収まりますが、エンジンがそのうち {held} を KV キャッシュと活性化に回さない（メモリ比率と予約メモリ）ため、それらに使えるメモリが不足します</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="34"/>
        <source>within the card</source>
        <translation>容量内</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="35"/>
        <source>over the card</source>
        <translation>容量超過</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="37"/>
        <source>none: the weights alone ({weights}) exceed the {capacity} card by {over}</source>
        <translation>なし: 重みだけ（{weights}）で容量 {capacity} を {over} 超えています</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="38"/>
        <source>none: weights and reserved memory exceed what the engine may use by {over}</source>
        <translation>なし: 重みと予約メモリがエンジンの使える量を {over} 超えています</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="39"/>
        <source>Store the KV cache in {value}</source>
        <translation>KV キャッシュを {value} で保持する</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="40"/>
        <source>Cap the context at {value} tokens</source>
        <translation>コンテキストを {value} トークンに制限する</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="41"/>
        <source>Cap concurrency at {value} sequences</source>
        <translation>同時実行数を {value} 系列に制限する</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="42"/>
        <source>Cap concurrency at one sequence</source>
        <translation>同時実行数を 1 系列に制限する</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="43"/>
        <source>Quantize the weights to {value}</source>
        <translation>重みを {value} に量子化する</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="44"/>
        <source>Quantizing the weights to {value}</source>
        <translation>重みを {value} に量子化すると</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="45"/>
        <source>Shard over {value} GPUs (tensor parallel)</source>
        <translation>{value} 台の GPU に分割する（テンソル並列）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="46"/>
        <source>Keep the experts of {value} layers on the CPU (--n-cpu-moe {value})</source>
        <translation>{value} 層のエキスパートを CPU に置く (--n-cpu-moe {value})</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="47"/>
        <source>{action}: saves {saves}</source>
        <translation>{action}: {saves} 節約</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="48"/>
        <source>{action}: saves {saves} per GPU</source>
        <translation>{action}: GPU あたり {saves} 節約</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="49"/>
        <source>{action} saves {saves} but is not enough: the fixed overhead alone exceeds the usable memory</source>
        <translation>{action} {saves} 節約できますが足りません: 固定オーバーヘッドだけで使えるメモリを超えています</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="50"/>
        <source>{action} saves {saves} but is not enough: the KV cache and activations alone ({need}) exceed the {room} left after overhead</source>
        <translation>{action} {saves} 節約できますが足りません: KV キャッシュと活性化だけで（{need}）、オーバーヘッド後に残る {room} を超えています</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="51"/>
        <source>{action}: saves {saves} (not enough alone)</source>
        <translation>{action}: {saves} 節約（これだけでは不足）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="52"/>
        <source>KV cache dtype</source>
        <translation>KV キャッシュの型</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="53"/>
        <source>Context</source>
        <translation>コンテキスト</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="54"/>
        <source>Concurrency</source>
        <translation>同時実行数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="55"/>
        <source>Weight format</source>
        <translation>重みの形式</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="56"/>
        <source>Tensor parallel</source>
        <translation>テンソル並列</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="57"/>
        <source>Experts in host RAM</source>
        <translation>エキスパートをホスト RAM に</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="58"/>
        <source>memory</source>
        <translation>メモリ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="59"/>
        <source>max_position_embeddings</source>
        <translation>max_position_embeddings</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="60"/>
        <source>the largest context vramdesk accepts</source>
        <translation>vramdesk が受け付ける最大コンテキスト</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="61"/>
        <source>Weights</source>
        <translation>重み</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="62"/>
        <source>KV cache</source>
        <translation>KV キャッシュ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="63"/>
        <source>Activations</source>
        <translation>活性化</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="64"/>
        <source>Overhead</source>
        <translation>オーバーヘッド</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="65"/>
        <source>Total</source>
        <translation>合計</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="66"/>
        <source>Recurrent state</source>
        <translation>再帰状態</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="67"/>
        <source>Activation peak</source>
        <translation>活性化のピーク</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="68"/>
        <source>Compute buffer</source>
        <translation>計算バッファ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="69"/>
        <source>Dequantization buffer</source>
        <translation>逆量子化バッファ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="70"/>
        <source>KV cache (device)</source>
        <translation>KV キャッシュ（デバイス上）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="71"/>
        <source>Non-torch memory</source>
        <translation>torch 外のメモリ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="72"/>
        <source>Ollama reserve</source>
        <translation>Ollama の予約</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="73"/>
        <source>Overhead (multiplier)</source>
        <translation>オーバーヘッド（乗数）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="74"/>
        <source>Overhead (workspace)</source>
        <translation>オーバーヘッド（ワークスペース）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="75"/>
        <source>Vision projector</source>
        <translation>ビジョンプロジェクター</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="76"/>
        <source>Weights (device)</source>
        <translation>重み（デバイス上）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="77"/>
        <source>The NVIDIA binding (the nvidia-ml-py package, module pynvml) is not installed. vramdesk works without a GPU; estimates are unaffected.</source>
        <translation>NVIDIA のバインディング（nvidia-ml-py パッケージ、pynvml モジュール）がインストールされていません。vramdesk は GPU なしでも動作し、見積もりに影響はありません。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="78"/>
        <source>No NVIDIA driver found: the NVML library (libnvidia-ml.so.1) is not installed. vramdesk works without a GPU; estimates are unaffected.</source>
        <translation>NVIDIA ドライバーが見つかりません（NVML ライブラリ libnvidia-ml.so.1 がありません）。vramdesk は GPU なしでも動作し、見積もりに影響はありません。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="79"/>
        <source>The NVIDIA driver is installed but not loaded (is the kernel module running?). vramdesk works without a GPU; estimates are unaffected.</source>
        <translation>NVIDIA ドライバーはインストールされていますが読み込まれていません（カーネルモジュールは動いていますか？）。vramdesk は GPU なしでも動作し、見積もりに影響はありません。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="80"/>
        <source>The NVIDIA driver and its NVML library differ in version (a driver update without a reboot?). Reboot or reload the driver to read the GPUs.</source>
        <translation>NVIDIA ドライバーと NVML ライブラリのバージョンが異なります（再起動せずにドライバーを更新しましたか？）。GPU を読むには再起動するかドライバーを読み込み直してください。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="81"/>
        <source>Permission denied reading the NVIDIA GPUs (check access to /dev/nvidia*).</source>
        <translation>NVIDIA GPU を読む権限がありません（/dev/nvidia* へのアクセスを確認してください）。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="82"/>
        <source>The NVIDIA driver is loaded but reports no GPU.</source>
        <translation>NVIDIA ドライバーは読み込まれていますが、GPU が報告されません。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="83"/>
        <source>A GPU stopped answering (NVML: GPU is lost or needs a reset).</source>
        <translation>GPU が応答しなくなりました（NVML: GPU が失われたか、リセットが必要です）。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="84"/>
        <source>This GPU or driver does not report memory through NVML.</source>
        <translation>この GPU またはドライバーは NVML でメモリを報告しません。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="85"/>
        <source>NVML failed with an unexpected error.</source>
        <translation>NVML が予期しないエラーで失敗しました。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="86"/>
        <source>NVML: the driver did not answer in time (a hung driver or a GPU in a bad state). vramdesk works without a GPU; estimates are unaffected.</source>
        <translation>NVML: ドライバーが時間内に応答しませんでした（ドライバーの停止か GPU の異常）。vramdesk は GPU なしでも動作し、見積もりに影響はありません。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="87"/>
        <source>NVML reported memory figures that cannot be true (the driver may be in a bad state); they are not shown.</source>
        <translation>NVML があり得ないメモリ値を報告しました（ドライバーの異常の可能性）。表示しません。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="88"/>
        <source>--cpu-moe has no effect: the model has no routed experts</source>
        <translation>--cpu-moe は効果がありません：このモデルにはルーティングされるエキスパートがありません</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="100"/>
        <source>SGLang&apos;s pool is mem_fraction_static of the memory free before the weights load: {0} MiB (CUDA context) in use then comes out of it; CUDA graphs are captured later, from the reserve</source>
        <translation>SGLang のプールは、重みを読み込む前の空きメモリに mem_fraction_static を掛けた量です。そのとき使用中の {0} MiB（CUDA コンテキスト）はそこから差し引かれます。CUDA グラフは後で予備分から確保されます</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="102"/>
        <source>a GGUF that keeps the multi-token-prediction block (GLM-{0}&apos;s NextN layers) loads it too: import the .gguf for its exact size</source>
        <translation>マルチトークン予測ブロックを残した GGUF（GLM-{0} の NextN 層）はそれも読み込みます。正確なサイズは .gguf をインポートしてください</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="108"/>
        <source>chunked local-attention layers: KV cache size in tokens counts every layer at full context; max concurrency and max context are solved exactly</source>
        <translation>チャンク化ローカルアテンション層: KV キャッシュのトークン数はすべての層をフルコンテキストで数えます。最大同時実行数と最大コンテキストは厳密に解いています</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="109"/>
        <source>chunked local-attention layers: vLLM&apos;s hybrid allocator reserves blocks per request in every KV group; the KV cache, max concurrency and the logged concurrency all follow it</source>
        <translation>チャンク化ローカルアテンション層: vLLM のハイブリッドアロケーターはリクエストごとにすべての KV グループでブロックを確保します。KV キャッシュ、最大同時実行数、ログに出る同時実行数はいずれもこれに従います</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="126"/>
        <source>includes the multimodal encoders and projectors: {0} parameters</source>
        <translation>マルチモーダルエンコーダーとプロジェクターを含みます: {0} パラメータ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="127"/>
        <source>includes the multimodal encoders and projectors: {0} parameters (vLLM --language-model-only leaves them out)</source>
        <translation>マルチモーダルエンコーダーとプロジェクターを含みます: {0} パラメータ（vLLM --language-model-only で除外できます）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="132"/>
        <source>not counted: the checkpoint&apos;s {0} multi-token-prediction layer(s) ({1} parameters), loaded only for MTP speculative decoding</source>
        <translation>含めていません: チェックポイントのマルチトークン予測（MTP）層 {0} 層（{1} パラメータ）。MTP 投機的デコードでのみ読み込まれます</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="133"/>
        <source>not counted: the checkpoint&apos;s {0} multi-token-prediction layer(s), loaded only for MTP speculative decoding</source>
        <translation>含めていません: チェックポイントのマルチトークン予測（MTP）層 {0} 層。MTP 投機的デコードでのみ読み込まれます</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="91"/>
        <source>--n-cpu-moe {0} has no effect: the model has no routed experts</source>
        <translation>--n-cpu-moe {0} は効果がありません：このモデルにはルーティングされるエキスパートがありません</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="92"/>
        <source>Fits in the {0} GiB free right now with {1} GiB to spare</source>
        <translation>現在の空き {0} GiB に収まります（余裕 {1} GiB）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="93"/>
        <source>MLA cache expanded to per-head K and V (older llama.cpp layout)</source>
        <translation>MLA キャッシュをヘッドごとの K と V に展開（古い llama.cpp の配置）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="94"/>
        <source>MLA cache is the compressed latent (vLLM/SGLang layout), replicated on every TP rank</source>
        <translation>MLA キャッシュは圧縮された潜在ベクトル（vLLM/SGLang の配置）で、各 TP ランクに複製</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="95"/>
        <source>MXFP4 MoE backend triton: what vLLM (newest) picks on an H100/H200 (SM90); A100, L40S and RTX cards take marlin, B200 flashinfer-trtllm: set mxfp4_backend</source>
        <translation>MXFP4 MoE バックエンド triton：vLLM（最新版）が H100/H200（SM90）で選ぶもの。A100・L40S・RTX 系は marlin、B200 は flashinfer-trtllm を使う：mxfp4_backend で指定してください</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="96"/>
        <source>MXFP4 experts padded for the triton kernel: {0} bytes per GPU, +{1} on the checkpoint&apos;s {2} (vLLM quantization/mxfp4.py create_weights)</source>
        <translation>triton カーネル向けにパディングされた MXFP4 エキスパート：GPU あたり {0} バイト、チェックポイントの {2} に対して +{1}（vLLM quantization/mxfp4.py create_weights）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="97"/>
        <source>MoE: a step reads the routed experts its tokens touch, each token picking experts uniformly and independently ({0} - ({1} - k/E)^tokens of them)</source>
        <translation>MoE: 1 ステップはそのトークンが触れるルーティング先エキスパートを読む。各トークンは一様かつ独立にエキスパートを選ぶ（そのうち {0} - ({1} - k/E)^tokens）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="98"/>
        <source>Needs {0} GiB more than is free right now</source>
        <translation>現在の空きより {0} GiB 多く必要です</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="99"/>
        <source>SGLang leaves total * ({0} - mem_fraction_static) for activations and CUDA graphs</source>
        <translation>SGLang は活性化と CUDA グラフ用に total * ({0} - mem_fraction_static) を残す</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="101"/>
        <source>V1 non-torch memory + NCCL buffers when TP/PP &gt; {0} (fitted)</source>
        <translation>V1 の torch 外メモリ + TP/PP &gt; {0} のときの NCCL バッファ（当てはめ値）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="103"/>
        <source>ceiling: datasheet {0} GB/s and dense fp16 {1} TFLOPS; the input embedding table is not read (a lookup)</source>
        <translation>上限: データシートの {0} GB/s と密行列 fp16 {1} TFLOPS。入力埋め込み表は読まない（参照のみ）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="104"/>
        <source>ceiling: datasheet {0} GB/s and dense fp32 {1} TFLOPS; the input embedding table is not read (a lookup)</source>
        <translation>上限: データシートの {0} GB/s と密行列 fp32 {1} TFLOPS。入力埋め込み表は読まない（参照のみ）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="105"/>
        <source>ceiling: datasheet {0} GB/s and dense fp4 {1} TFLOPS; the input embedding table is not read (a lookup)</source>
        <translation>上限: データシートの {0} GB/s と密行列 fp4 {1} TFLOPS。入力埋め込み表は読まない（参照のみ）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="106"/>
        <source>ceiling: datasheet {0} GB/s and dense fp8 {1} TFLOPS; the input embedding table is not read (a lookup)</source>
        <translation>上限: データシートの {0} GB/s と密行列 fp8 {1} TFLOPS。入力埋め込み表は読まない（参照のみ）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="107"/>
        <source>ceiling: datasheet {0} GB/s and dense int8 {1} TFLOPS; the input embedding table is not read (a lookup)</source>
        <translation>上限: データシートの {0} GB/s と密行列 int8 {1} TFLOPS。入力埋め込み表は読まない（参照のみ）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="110"/>
        <source>chunked local-attention layers: {0} cells of the iSWA cache (min(cells, chunk * (unified ? sequences : {1}) + n_ubatch), padded to {2}; llama-kv-cache-iswa.cpp)</source>
        <translation>チャンク化ローカルアテンション層: iSWA キャッシュの {0} セル（min(cells, chunk * (unified ? sequences : {1}) + n_ubatch) を {2} に切り上げ。llama-kv-cache-iswa.cpp）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="111"/>
        <source>constant per sequence (does not grow with the context)</source>
        <translation>シーケンスごとに一定（コンテキストとともに増えません）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="112"/>
        <source>context_tokens {0} exceeds max_position_embeddings {1}: computed anyway (rope scaling may allow it)</source>
        <translation>context_tokens {0} が max_position_embeddings {1} を超えています: そのまま計算しました（RoPE スケーリングで可能な場合があります）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="113"/>
        <source>conv and SSM state in the {0}-bit model dtype (vLLM mamba_cache_dtype / mamba_ssm_cache_dtype auto)</source>
        <translation>畳み込み状態と SSM 状態はモデルの {0} ビット dtype（vLLM mamba_cache_dtype / mamba_ssm_cache_dtype auto）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="114"/>
        <source>conv state auto, SSM state auto (mamba_cache_dtype / mamba_ssm_cache_dtype; auto = the {0}-bit model dtype)</source>
        <translation>畳み込み状態 auto、SSM 状態 auto（mamba_cache_dtype / mamba_ssm_cache_dtype。auto = モデルの {0} ビット dtype）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="115"/>
        <source>conv state auto, SSM state float32 (mamba_cache_dtype / mamba_ssm_cache_dtype; auto = the {0}-bit model dtype)</source>
        <translation>畳み込み状態 auto、SSM 状態 float32（mamba_cache_dtype / mamba_ssm_cache_dtype。auto = モデルの {0} ビット dtype）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="116"/>
        <source>embeddings and output head kept {0}-bit, as real checkpoints store them</source>
        <translation>埋め込みと出力ヘッドは実際のチェックポイントと同じく {0} ビットのまま</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="117"/>
        <source>every sequence at its full {0}-token context (the slowest step); no communication between GPUs modelled</source>
        <translation>すべてのシーケンスが {0} トークンのコンテキストを満たしている（最も遅いステップ）。GPU 間の通信はモデル化しない</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="118"/>
        <source>expected: {0} of the bandwidth + {1} ms per step, compute {2} x M / (M + {3}) of the peak for M tokens a step, prefill in chunks of {4} tokens; fitted on {5} published llama.cpp measurements (tests/data/speed-measurements.jsonl)</source>
        <translation>予想: 帯域幅の {0} + 1 ステップあたり {1} ms、1 ステップ M トークンで演算はピークの {2} x M / (M + {3})、プリフィルは {4} トークンずつ。公開済みの llama.cpp 測定値 {5} 件に当てはめた定数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="119"/>
        <source>expected: {0} of the bandwidth + {1} ms per step, compute {2} x M / (M + {3}) of the peak for M tokens a step, prefill in chunks of {4} tokens; fitted on {5} published vLLM measurements only (memory terms; compute terms llama.cpp&apos;s)</source>
        <translation>予想: 帯域幅の {0} + 1 ステップあたり {1} ms、1 ステップ M トークンで演算はピークの {2} x M / (M + {3})、プリフィルは {4} トークンずつ。公開済みの vLLM 測定値 {5} 件のみに当てはめた定数（メモリ項のみ。演算項は llama.cpp のもの）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="120"/>
        <source>factor {0} covers allocator fragmentation; fixed {1} GiB covers the CUDA context and workspaces</source>
        <translation>係数 {0} はアロケーターの断片化分、固定 {1} GiB は CUDA コンテキストとワークスペース分</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="121"/>
        <source>fitted to published vLLM logs; +-{0} % across models: calibrate from a start-up log</source>
        <translation>公開された vLLM ログへの当てはめ値。モデル間で ±{0} %: 起動ログから較正してください</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="124"/>
        <source>group quantization: {0} + ({1} + {2}) / {3} = {4} bits per weight</source>
        <translation>グループ量子化: {0} + ({1} + {2}) / {3} = 重みあたり {4} ビット</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="125"/>
        <source>hybrid model: {0}-token blocks</source>
        <translation>ハイブリッドモデル: {0} トークンのブロック</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="128"/>
        <source>live_buffers = {0} is an assumption; calibrate it by measurement</source>
        <translation>live_buffers = {0} は仮定です。測定で較正してください</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="129"/>
        <source>llama.cpp keeps f32 r/s states, one per sequence slot (-np)</source>
        <translation>llama.cpp は f32 の r/s 状態をシーケンススロット（-np）ごとに 1 つ保持します</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="130"/>
        <source>max(hidden * intermediate, hidden * heads * head_dim) * {0} (bitsandbytes only)</source>
        <translation>max(hidden * intermediate, hidden * heads * head_dim) * {0}（bitsandbytes のみ）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="131"/>
        <source>modelled within about {0} %: calibrate from the log&apos;s compute buffer line</source>
        <translation>誤差は約 {0} %: ログの compute buffer 行から較正してください</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="134"/>
        <source>recurrent layers: {0} bytes of state per sequence, whatever the context (max concurrency counts it per sequence, max context does not grow it)</source>
        <translation>再帰層: コンテキストに関係なく 1 シーケンスあたり {0} バイトの状態（最大同時実行数はシーケンスごとに数え、最大コンテキストでは増えません）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="135"/>
        <source>routed experts in host memory: one layer&apos;s experts ({0} bytes) are copied into the compute buffer for batches of {1}+ tokens (ggml-cuda.cu offload_op, ggml-backend.cpp)</source>
        <translation>ルーティングされるエキスパートはホストメモリ上: {1} トークン以上のバッチでは 1 層分のエキスパート ({0} バイト) が計算バッファにコピーされます (ggml-cuda.cu offload_op、ggml-backend.cpp)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="136"/>
        <source>routed experts kept in host memory (--cpu-moe): {0} bytes</source>
        <translation>ホストメモリに置くルーティングエキスパート (--cpu-moe): {0} バイト</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="137"/>
        <source>routed experts kept in host memory (--n-cpu-moe {0}): {1} bytes</source>
        <translation>ホストメモリに置くルーティングエキスパート (--n-cpu-moe {0}): {1} バイト</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="138"/>
        <source>sequences * recurrent_layers * attention_page (the Mamba page padded to it)</source>
        <translation>sequences * recurrent_layers * attention_page（Mamba のページをこれに合わせてパディング）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="139"/>
        <source>sliding-window layers: KV cache size in tokens counts every layer at full context; max concurrency and max context are solved exactly</source>
        <translation>スライディングウィンドウ層: KV キャッシュのトークン数はすべての層をフルコンテキストで数えます。最大同時実行数と最大コンテキストは厳密に解いています</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="140"/>
        <source>sliding-window layers: vLLM&apos;s hybrid allocator reserves blocks per request in every KV group; the KV cache, max concurrency and the logged concurrency all follow it</source>
        <translation>スライディングウィンドウ層: vLLM のハイブリッドアロケーターはリクエストごとにすべての KV グループでブロックを確保します。KV キャッシュ、最大同時実行数、ログに出る同時実行数はいずれもこれに従います</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="141"/>
        <source>smallest GPU count: no tensor-parallel size tried above {0} shards the {1} attention and {2} KV heads evenly, and {3} GPUs are not enough</source>
        <translation>最小 GPU 数: 試したテンソル並列サイズのうち {0} より大きいものは {1} 個のアテンションヘッドと {2} 個の KV ヘッドを均等に分割できず、{3} GPU では足りません</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="142"/>
        <source>sparse attention: llama.cpp&apos;s indexer key cache (llama-kv-cache-dsa) is not counted; the KV figure is the MLA cache alone</source>
        <translation>スパースアテンション: llama.cpp のインデクサーキーキャッシュ（llama-kv-cache-dsa）は含めていません。KV の値は MLA キャッシュのみです</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="143"/>
        <source>sparse attention: the indexer key ({0} values per token per layer) is cached beside the latent at the cache dtype</source>
        <translation>スパースアテンション: インデクサーキー（1 トークン・1 層あたり {0} 値）を潜在ベクトルと並べてキャッシュ dtype で保持します</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="144"/>
        <source>sparse attention: the indexer key is cached in fp8 + a float32 scale ({0} bytes per token per layer) beside the latent</source>
        <translation>スパースアテンション: インデクサーキーは fp8 + float32 スケール（1 トークン・1 層あたり {0} バイト）で潜在ベクトルと並べて保持します</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="145"/>
        <source>the CUDA context (about {0}-{1} GiB) is outside llama.cpp&apos;s buffers</source>
        <translation>CUDA コンテキスト（約 {0}-{1} GiB）は llama.cpp のバッファ外</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="146"/>
        <source>the image compute buffer (clip.cpp alloc_compute_meta) is not counted: Qwen3-VL {0}-wide encoder, 1472x1472 warmup image: {1} MiB; {2}-wide: {3} MiB (ggml-org/llama.cpp issue #{4} PR #{5} logs)</source>
        <translation>画像の計算バッファ (clip.cpp alloc_compute_meta) は含みません: Qwen3-VL の幅 {0} のエンコーダー、1472x1472 のウォームアップ画像で {1} MiB、幅 {2} で {3} MiB (ggml-org/llama.cpp issue #{4}、PR #{5} のログ)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="147"/>
        <source>the input embedding ({0} bytes) stays in host memory</source>
        <translation>入力埋め込み（{0} バイト）はホストメモリに置かれる</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="148"/>
        <source>the multimodal encoders ({0} parameters) are not in the model&apos;s GGUF: the projector file (--mmproj) holds them</source>
        <translation>マルチモーダルエンコーダー（{0} パラメータ）はモデルの GGUF に含まれず、プロジェクターファイル（--mmproj）にあります</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="149"/>
        <source>the output layer stays in host memory (n_gpu_layers &lt;= num_hidden_layers): its matrix ({0} bytes) is copied into the compute buffer for batches of {1}+ tokens (ggml-backend.cpp scheduler)</source>
        <translation>出力層はホストメモリに残ります (n_gpu_layers &lt;= num_hidden_layers): {1} トークン以上のバッチではその行列 ({0} バイト) が計算バッファにコピーされます (ggml-backend.cpp のスケジューラ)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="150"/>
        <source>torch.cuda.max_memory_allocated excludes the CUDA context</source>
        <translation>torch.cuda.max_memory_allocated は CUDA コンテキストを含まない</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="151"/>
        <source>vLLM raises the attention block to {0} tokens so that a page holds one layer&apos;s state ({1} bytes) and pads the state to the page (vllm/platforms/interface.py _align_hybrid_block_size)</source>
        <translation>vLLM はアテンションブロックを {0} トークンに広げ、1 ページに 1 層分の状態（{1} バイト）が収まるようにし、状態をページに合わせてパディングします（vllm/platforms/interface.py _align_hybrid_block_size）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="152"/>
        <source>vLLM&apos;s hybrid allocator reserves, per request, blocks in every KV group; a chunked group holds one attention chunk plus max_num_batched_tokens (kv_cache_interface.py ChunkedLocalAttentionSpec)</source>
        <translation>vLLM のハイブリッドアロケーターはリクエストごとにすべての KV グループでブロックを確保します。チャンク化グループは 1 つのアテンションチャンクと max_num_batched_tokens を保持します（kv_cache_interface.py ChunkedLocalAttentionSpec）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="154"/>
        <source>vocabulary padded to {0} rows and a {1}-bit RoPE cos/sin cache on each GPU (vLLM/SGLang VocabParallelEmbedding and rotary embedding)</source>
        <translation>語彙を {0} 行単位に詰め、各 GPU に {1} ビットの RoPE cos/sin キャッシュ（vLLM/SGLang の VocabParallelEmbedding と回転埋め込み）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="155"/>
        <source>{0} (give a prompt length to model the prefill peak)</source>
        <translation>{0}（プロンプト長を入れるとプリフィルのピークを見積もります）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="156"/>
        <source>{0} (no prefill modelled)</source>
        <translation>{0}（プリフィルは見積もりなし）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="157"/>
        <source>{0} (not in llama.cpp&apos;s buffers)</source>
        <translation>{0}（llama.cpp のバッファ外）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="158"/>
        <source>{0} MiB (CUDA context) in use before the weights load comes out of the pool, times mem_fraction_static (model_runner.py profile_max_num_token)</source>
        <translation>重みの読み込み前に使用中の {0} MiB（CUDA コンテキスト）は、mem_fraction_static 倍してプールから差し引かれる（model_runner.py profile_max_num_token）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="159"/>
        <source>{0} MiB per GPU (discover/gpu.go); OLLAMA_GPU_OVERHEAD defaults to {1}</source>
        <translation>GPU あたり {0} MiB（discover/gpu.go）。OLLAMA_GPU_OVERHEAD の既定は {1}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="160"/>
        <source>{0} cells (padded to {1})</source>
        <translation>{0} セル（{1} 単位に詰める）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="161"/>
        <source>{0} chunked local-attention layers cache at most {1} tokens per sequence</source>
        <translation>{0} 層のチャンク化ローカルアテンション層は 1 シーケンスあたり最大 {1} トークンをキャッシュします</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="162"/>
        <source>{0} sliding-window layers cache at most {1} tokens per sequence</source>
        <translation>スライディングウィンドウ層 {0} 層は系列あたり最大 {1} トークンをキャッシュ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="123"/>
        <source>flash attention on: no f32 KQ scores in the compute buffer</source>
        <translation>Flash Attention オン: 計算バッファに f32 の KQ スコアは載らない</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="25"/>
        <source>{batch} x {context} tokens</source>
        <extracomment>Every core string the window may show: written by tools/gen_core_text.py from the core&apos;s tables (tests/gui/test_japanese.py fails when it is out of date).</extracomment>
        <translation>{batch} x {context} トークン</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="36"/>
        <source>{usable} ({exact} B)</source>
        <translation>{usable}（{exact} B）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="89"/>
        <source>--language-model-only: the multimodal encoders and projectors ({0} parameters) are not loaded</source>
        <translation>--language-model-only: マルチモーダルエンコーダーとプロジェクター（{0} パラメータ）は読み込まれません</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="90"/>
        <source>--language-model-only: this model has no multimodal encoder to leave out</source>
        <translation>--language-model-only: このモデルには除外するマルチモーダルエンコーダーがありません</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="122"/>
        <source>flash attention off: the f32 KQ scores are in the compute buffer</source>
        <translation>Flash Attention オフ: f32 の KQ スコアが計算バッファに載る</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="153"/>
        <source>vLLM&apos;s hybrid allocator reserves, per request, blocks in every KV group; a sliding group holds the window plus max_num_batched_tokens (kv_cache_utils.py)</source>
        <translation>vLLM のハイブリッドアロケーターはリクエストごとに各 KV グループのブロックを確保する。スライディンググループはウィンドウ + max_num_batched_tokens を保持（kv_cache_utils.py）</translation>
    </message>
</context>
<context>
    <name>DropImporter</name>
    <message>
        <location filename="../../vramdesk/gui/dialogs/drop_import.py" line="113"/>
        <source>Open &amp;recent</source>
        <extracomment>What a drop may carry: files by suffix, or a folder.</extracomment>
        <translation>最近使ったファイル(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/drop_import.py" line="132"/>
        <source>(none yet)</source>
        <translation>（まだありません）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/drop_import.py" line="134"/>
        <source>Clear recent</source>
        <translation>履歴を消去</translation>
    </message>
</context>
<context>
    <name>ExportMenu</name>
    <message>
        <location filename="../../vramdesk/gui/dialogs/export_menu.py" line="34"/>
        <source>Export chart (PNG/SVG)…</source>
        <translation>グラフをエクスポート（PNG/SVG）…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/export_menu.py" line="35"/>
        <source>Export breakdown (CSV/Markdown/JSON)…</source>
        <translation>内訳をエクスポート（CSV/Markdown/JSON）…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/export_menu.py" line="36"/>
        <source>Export comparison (CSV/Markdown/JSON)…</source>
        <translation>比較をエクスポート（CSV/Markdown/JSON）…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/export_menu.py" line="37"/>
        <source>Copy breakdown as Markdown</source>
        <translation>内訳を Markdown でコピー</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/export_menu.py" line="38"/>
        <source>Copy comparison as Markdown</source>
        <translation>比較を Markdown でコピー</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/export_menu.py" line="48"/>
        <source>Saved {0}</source>
        <translation>{0} を保存しました</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/export_menu.py" line="80"/>
        <source>Breakdown copied to the clipboard</source>
        <translation>内訳をクリップボードにコピーしました</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/export_menu.py" line="88"/>
        <source>Comparison copied to the clipboard</source>
        <translation>比較をクリップボードにコピーしました</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/export_menu.py" line="93"/>
        <source>Export chart</source>
        <translation>グラフをエクスポート</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/export_menu.py" line="100"/>
        <source>Export breakdown</source>
        <translation>内訳をエクスポート</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/export_menu.py" line="107"/>
        <source>Export comparison</source>
        <translation>比較をエクスポート</translation>
    </message>
</context>
<context>
    <name>FiguresTable</name>
    <message>
        <location filename="../../vramdesk/gui/panels/figures_table.py" line="76"/>
        <source>Part</source>
        <extracomment>The columns of exact bytes and of the size in the display unit.</extracomment>
        <translation>項目</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/figures_table.py" line="76"/>
        <source>Bytes</source>
        <translation>バイト</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/figures_table.py" line="76"/>
        <source>Size</source>
        <translation>サイズ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/figures_table.py" line="154"/>
        <source>Size ({0})</source>
        <translation>サイズ ({0})</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/figures_table.py" line="164"/>
        <source>Total</source>
        <translation>合計</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/figures_table.py" line="184"/>
        <source>Host RAM (not in the total): {0} = weights {1} + KV cache {2}</source>
        <translation>ホスト RAM (合計に含まず): {0} = 重み {1} + KV キャッシュ {2}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/figures_table.py" line="190"/>
        <source> (routed experts {0})</source>
        <translation> (うちルーティングされるエキスパート {0})</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/figures_table.py" line="194"/>
        <source>fits this machine&apos;s RAM ({0})</source>
        <translation>このマシンの RAM ({0}) に収まります</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/figures_table.py" line="196"/>
        <source>does not fit this machine&apos;s RAM ({0})</source>
        <translation>このマシンの RAM ({0}) に収まりません</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/figures_table.py" line="274"/>
        <source>Import notes:</source>
        <translation>インポート時の注記:</translation>
    </message>
</context>
<context>
    <name>FitsTab</name>
    <message>
        <location filename="../../vramdesk/gui/tabs/fits.py" line="35"/>
        <source>GPU</source>
        <extracomment>The headline&apos;s colours per answer (text, background), so a row reads like the verdict: the text is set with the background, as the palette&apos;s text is light in a dark scheme.</extracomment>
        <translation>GPU</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/fits.py" line="36"/>
        <source>Capacity</source>
        <translation>容量</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/fits.py" line="37"/>
        <source>Needs</source>
        <translation>必要量</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/fits.py" line="38"/>
        <source>Headroom</source>
        <translation>余裕</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/fits.py" line="39"/>
        <source>Verdict</source>
        <translation>判定</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/fits.py" line="43"/>
        <source>The card less the estimated total (per GPU)</source>
        <translation>カードの容量から推定合計を引いた値（GPU あたり）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/fits.py" line="45"/>
        <source>The headline&apos;s answer: whether the engine&apos;s usable memory holds the KV cache and activations</source>
        <translation>見出しと同じ判定: エンジンが使えるメモリに KV キャッシュとアクティベーションが収まるか</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/fits.py" line="72"/>
        <source>✔ fits</source>
        <translation>✔ 収まる</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/fits.py" line="73"/>
        <source>! tight</source>
        <translation>! ぎりぎり</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/fits.py" line="74"/>
        <source>✘ does not fit</source>
        <translation>✘ 収まらない</translation>
    </message>
</context>
<context>
    <name>FormColumn</name>
    <message>
        <location filename="../../vramdesk/gui/forms/form_column.py" line="195"/>
        <source>Scenario</source>
        <extracomment>Characters a choice box is wide enough for (the open list shows whole entries). The everyday inputs, in the order shown at the top: (form key, field name).</extracomment>
        <translation>シナリオ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/form_column.py" line="274"/>
        <source>Model</source>
        <extracomment>The scrolling fields over the error strip: what the window&apos;s inputs dock holds.</extracomment>
        <translation>モデル</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/form_column.py" line="204"/>
        <source>Weight format</source>
        <translation>重みの形式</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/form_column.py" line="205"/>
        <source>Target GPU</source>
        <translation>対象 GPU</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/form_column.py" line="213"/>
        <source>Architecture (filled by presets and imports)</source>
        <translation>アーキテクチャ（プリセットとインポートで入力）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/form_column.py" line="214"/>
        <source>Quantization details</source>
        <translation>量子化の詳細</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/form_column.py" line="215"/>
        <source>Prefill, activations and live tokens</source>
        <translation>プリフィル・活性化・同時トークン</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/form_column.py" line="216"/>
        <source>Engine memory settings and overhead</source>
        <translation>エンジンのメモリ設定とオーバーヘッド</translation>
    </message>
</context>
<context>
    <name>Glossary</name>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="19"/>
        <source>A bundled model (real config.json facts and published parameter counts) or one of your saved presets. Picking one fills the architecture and the weight format.</source>
        <extracomment>Field name -&gt; what it means (config.json names where there is one).</extracomment>
        <translation>同梱モデル（実際の config.json の値と公表パラメータ数）または保存したプリセット。選ぶとアーキテクチャと重みの形式が入力されます。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="24"/>
        <source>Transformer blocks (config.json num_hidden_layers); each caches K and V.</source>
        <translation>Transformer ブロックの数（config.json の num_hidden_layers）。各層が K と V をキャッシュします。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="27"/>
        <source>Width of the residual stream (config.json hidden_size, d_model).</source>
        <translation>残差ストリームの幅（config.json の hidden_size、d_model）。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="30"/>
        <source>Query heads per layer. The KV cache counts KV heads, not these.</source>
        <translation>層ごとのクエリヘッド数。KV キャッシュが数えるのはこれではなく KV ヘッドです。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="33"/>
        <source>Key/value heads per layer: equal to the query heads for MHA, fewer for GQA (grouped-query attention), 1 for MQA. The KV cache is 2 x KV heads x head_dim x bytes per element per token per layer.</source>
        <translation>層ごとのキー／バリューヘッド数：MHA ではクエリヘッドと同数、GQA（グループ化クエリアテンション）では少なく、MQA では 1。KV キャッシュは 1 トークン 1 層あたり 2 × KV ヘッド × head_dim × 要素のバイト数です。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="39"/>
        <source>Width of one attention head; auto: hidden_size / num_attention_heads.</source>
        <translation>アテンションヘッド 1 つの幅。auto：hidden_size / num_attention_heads。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="42"/>
        <source>Width of the MLP (feed-forward) layer of a dense block.</source>
        <translation>密な層の MLP（フィードフォワード）の幅。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="45"/>
        <source>Tokens in the vocabulary: rows of the embedding and of the lm_head.</source>
        <translation>語彙のトークン数：埋め込みと lm_head の行数。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="48"/>
        <source>The lm_head reuses the input embedding matrix, so it is stored (and counted) once.</source>
        <translation>lm_head が入力埋め込み行列を共有するため、1 回だけ保存（計上）されます。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="52"/>
        <source>The longest context the model was trained for; longer contexts warn.</source>
        <translation>モデルが学習した最長コンテキスト。これより長いと警告します。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="55"/>
        <source>Parameter count from the checkpoint or model card. Empty: computed from the shape.</source>
        <translation>チェックポイントまたはモデルカードのパラメータ数。空欄：形状から計算します。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="59"/>
        <source>Routed experts per MoE layer (mixture of experts). Every expert stays resident in memory, although only a few run per token. 0: a dense model.</source>
        <translation>MoE 層ごとのルーテッドエキスパート数（混合エキスパート）。トークンごとに動くのは一部でも、全エキスパートがメモリに常駐します。0：密なモデル。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="64"/>
        <source>Experts each token is routed to (sets the active parameters, not memory).</source>
        <translation>各トークンが送られるエキスパート数（アクティブパラメータを決め、メモリは変えません）。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="67"/>
        <source>MLP width of one routed expert.</source>
        <translation>ルーテッドエキスパート 1 つの MLP の幅。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="68"/>
        <source>Experts every token passes through in addition to the routed ones.</source>
        <translation>ルーテッドエキスパートに加えて全トークンが通るエキスパートの数。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="71"/>
        <source>Dense leading layers: the first N layers of an MoE model (DeepSeek&apos;s first_k_dense_replace) use a plain dense MLP instead of experts.</source>
        <translation>先頭の密な層：MoE モデルの最初の N 層（DeepSeek の first_k_dense_replace）はエキスパートではなく通常の密な MLP を使います。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="76"/>
        <source>Sliding-window attention: a sliding layer attends to (and caches) only the last N tokens. off: every layer attends to the whole context.</source>
        <translation>スライディングウィンドウアテンション：スライド層は直近 N トークンだけを参照（キャッシュ）します。off：全層がコンテキスト全体を参照します。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="81"/>
        <source>Which layers slide: all, none, alternating, or N local layers per global one (Gemma&apos;s 5:1). Global layers cache the whole context.</source>
        <translation>どの層がスライドするか：全層、なし、交互、またはグローバル層 1 つごとに N 個のローカル層（Gemma の 5:1）。グローバル層はコンテキスト全体をキャッシュします。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="86"/>
        <source>Storage format of the weights: bits per weight (bf16 16, fp8/int8 8, int4 4, GGUF types at their exact block sizes). (approx.): a published average, not exact.</source>
        <translation>重みの保存形式：重みあたりのビット数（bf16 は 16、fp8/int8 は 8、int4 は 4、GGUF の型は正確なブロックサイズ）。（近似）：正確ではなく公表平均値です。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="91"/>
        <source>Group quantization (GPTQ/AWQ): every group of N weights carries its own scale and zero point; int4 with group 128 costs 4 + 32/128 = 4.25 bits per weight.</source>
        <translation>グループ量子化（GPTQ/AWQ）：N 個の重みごとにスケールとゼロ点を持ちます。グループ 128 の int4 は 4 + 32/128 = 4.25 ビット／重み。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="96"/>
        <source>Bits of each group&apos;s scale (fp16: 16).</source>
        <translation>各グループのスケールのビット数（fp16：16）。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="97"/>
        <source>Bits of each group&apos;s zero point (symmetric formats have none: 0).</source>
        <translation>各グループのゼロ点のビット数（対称形式にはなし：0）。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="100"/>
        <source>Keep the embedding and lm_head in 16 bits while the rest is quantized (what GPTQ/AWQ checkpoints do).</source>
        <translation>残りを量子化しても、埋め込みと lm_head を 16 ビットのまま保持します（GPTQ/AWQ チェックポイントの方式）。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="105"/>
        <source>Only the routed experts use the format; attention and the rest stay 16-bit (gpt-oss MXFP4 checkpoints).</source>
        <translation>ルーテッドエキスパートだけがこの形式を使い、アテンションなどは 16 ビットのままです（gpt-oss の MXFP4 チェックポイント）。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="110"/>
        <source>Tokens each sequence holds in the KV cache: prompt plus generated (vLLM&apos;s max_model_len when sizing for the worst case).</source>
        <translation>各シーケンスが KV キャッシュに保持するトークン数：プロンプト＋生成分（最悪ケースを見積もるときは vLLM の max_model_len）。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="115"/>
        <source>Sequences served at the same time (concurrency). KV memory grows with context x concurrency: 100 requests x 500 tokens take what 5 x 10,000 take.</source>
        <translation>同時に処理するシーケンス数（同時実行数）。KV メモリはコンテキスト × 同時実行数に比例します：500 トークン × 100 リクエストは 10,000 × 5 と同じです。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="120"/>
        <source>All tokens in the KV cache at once: context x concurrency, editable.</source>
        <translation>KV キャッシュに同時に載る全トークン：コンテキスト × 同時実行数（編集可）。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="123"/>
        <source>Prompt tokens prefilled at once per sequence; sets the activation peak. no prefill: no activation term (as the source documents&apos; totals).</source>
        <translation>シーケンスごとに一度にプリフィルするプロンプトのトークン数。活性化のピークを決めます。プリフィルなし：活性化の項なし（元資料の合計と同じ）。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="128"/>
        <source>Chunked prefill: tokens processed per step (vLLM max_num_batched_tokens, llama.cpp n_ubatch); caps the tokens in flight, and so the activation peak.</source>
        <translation>チャンク化プリフィル：1 ステップで処理するトークン数（vLLM の max_num_batched_tokens、llama.cpp の n_ubatch）。処理中のトークン数、ひいては活性化のピークを抑えます。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="133"/>
        <source>Live activation buffers: how many tensors of hidden + intermediate width per token are alive at the prefill peak. 4 is the source article&apos;s assumption; calibrate it from a measured run.</source>
        <translation>同時に生きている活性化バッファ：プリフィルのピーク時に生存する、トークンあたり hidden + intermediate 幅のテンソルの数。4 は元記事の仮定で、実測から較正してください。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="139"/>
        <source>Keep the logits (vocab_size values) of every prefilled position, not only of the last one per sequence.</source>
        <translation>各シーケンスの最後の位置だけでなく、プリフィルした全位置のロジット（vocab_size 個の値）を保持します。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="144"/>
        <source>Element type of the KV cache: fp16/bf16 2 bytes, fp8 1 byte; q8_0/q4_0 are llama.cpp&apos;s block types.</source>
        <translation>KV キャッシュの要素型：fp16/bf16 は 2 バイト、fp8 は 1 バイト。q8_0/q4_0 は llama.cpp のブロック型です。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="149"/>
        <source>Whose memory accounting to follow: formula is the source documents&apos; neutral one; vLLM, SGLang, llama.cpp, Ollama and transformers follow each engine&apos;s own code.</source>
        <translation>どのメモリ会計に従うか：formula は元資料の中立な式、vLLM・SGLang・llama.cpp・Ollama・transformers は各エンジン自身のコードに従います。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="154"/>
        <source>Share of the GPU&apos;s memory the engine may take (vLLM&apos;s flag, 0.9 by default); the KV cache gets what is left of it after weights and overhead.</source>
        <translation>エンジンが使ってよい GPU メモリの割合（vLLM のフラグ、既定 0.9）。KV キャッシュには重みとオーバーヘッドを引いた残りが割り当てられます。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="159"/>
        <source>Paged attention: the KV cache is allocated in blocks of N tokens, so each sequence is rounded up to whole blocks (vLLM: 16). unpaged: exact token counts.</source>
        <translation>ページドアテンション：KV キャッシュを N トークンのブロック単位で確保するため、各シーケンスはブロック単位に切り上げられます（vLLM：16）。unpaged：正確なトークン数。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="164"/>
        <source>A prefix common to every sequence (a system prompt); with prefix caching its whole blocks are stored once.</source>
        <translation>全シーケンスに共通する接頭辞（システムプロンプト）。プレフィックスキャッシュでは、その完全なブロックは 1 回だけ保存されます。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="169"/>
        <source>Tensor parallel (TP): weights and KV heads are split over N GPUs; each GPU holds max(1, KV heads / N) heads.</source>
        <translation>テンソル並列（TP）：重みと KV ヘッドを N 枚の GPU に分割します。各 GPU は max(1, KV ヘッド / N) 個のヘッドを持ちます。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="174"/>
        <source>Pipeline parallel (PP): the layers are split over N GPUs.</source>
        <translation>パイプライン並列（PP）：層を N 枚の GPU に分割します。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="177"/>
        <source>Overhead form: how memory beyond weights, KV cache and activations is added. multiplier: (weights + KV + activations) x factor + fixed; workspace: weights x fraction. Both come from the source documents.</source>
        <translation>オーバーヘッドの形：重み・KV キャッシュ・活性化以外のメモリの加え方。multiplier：（重み + KV + 活性化）× 係数 + 固定分、workspace：重み × 割合。どちらも元資料に由来します。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="183"/>
        <source>Multiplier form: 1.15 adds 15 % for allocator fragmentation and framework buffers.</source>
        <translation>multiplier 形：1.15 はアロケータの断片化とフレームワークのバッファに 15 % を加えます。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="187"/>
        <source>Multiplier form: memory that does not scale (CUDA context, cuBLAS workspace), 1 GiB by default.</source>
        <translation>multiplier 形：規模に比例しないメモリ（CUDA コンテキスト、cuBLAS ワークスペース）、既定 1 GiB。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="192"/>
        <source>Workspace form: overhead as a share of the weights (0.05 = 5 %).</source>
        <translation>workspace 形：重みに対する割合としてのオーバーヘッド（0.05 = 5 %）。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="195"/>
        <source>The engine caches only the window on sliding layers (vLLM, transformers). Off: it caches the whole context on every layer.</source>
        <translation>エンジンがスライド層でウィンドウ分だけをキャッシュします（vLLM、transformers）。オフ：全層でコンテキスト全体をキャッシュします。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="200"/>
        <source>The card to check against: catalog GPUs at the MiB nvidia-smi reports, a custom capacity, or a local GPU&apos;s total or free memory (NVML).</source>
        <translation>照合するカード：nvidia-smi が示す MiB のカタログ GPU、任意の容量、またはローカル GPU の総量か空き（NVML）。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="205"/>
        <source>Any capacity, in GiB (2^30 bytes) or MiB; choosing one selects it.</source>
        <translation>任意の容量（GiB = 2^30 バイト、または MiB）。入力するとこれが選ばれます。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="208"/>
        <source>Query heads per KV head. MHA: 1; GQA: more than 1; MQA: all queries share one KV head; MLA caches a compressed latent instead of heads.</source>
        <translation>KV ヘッド 1 つあたりのクエリヘッド数。MHA：1、GQA：1 より大、MQA：全クエリが 1 つの KV ヘッドを共有、MLA はヘッドの代わりに圧縮した潜在表現をキャッシュします。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/glossary.py" line="213"/>
        <source>KV-cache bytes one token takes across all layers (before paging).</source>
        <translation>1 トークンが全層で占める KV キャッシュのバイト数（ページング前）。</translation>
    </message>
</context>
<context>
    <name>GpuPanel</name>
    <message>
        <location filename="../../vramdesk/gui/panels/gpu.py" line="122"/>
        <source>Refresh</source>
        <extracomment>Auto-refresh interval limits, seconds.</extracomment>
        <translation>更新</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/gpu.py" line="123"/>
        <source>Auto-refresh every</source>
        <translation>自動更新の間隔</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/gpu.py" line="126"/>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/gpu.py" line="236"/>
        <source>Could not read the GPUs: {0}</source>
        <translation>GPU を読み取れませんでした: {0}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/gpu.py" line="267"/>
        <source>{0} used of {1} · {2} free</source>
        <translation>{1} 中 {0} 使用 · {2} 空き</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/gpu.py" line="274"/>
        <source>MIG {0}: {1} free of {2}</source>
        <translation>MIG {0}: {2} 中 {1} 空き</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/gpu.py" line="287"/>
        <source>memory not reported</source>
        <translation>メモリ情報なし</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/gpu.py" line="295"/>
        <source>Driver {0}</source>
        <translation>ドライバー {0}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/gpu.py" line="297"/>
        <source> · CUDA {0}</source>
        <translation> · CUDA {0}</translation>
    </message>
</context>
<context>
    <name>HelpMenu</name>
    <message>
        <location filename="../../vramdesk/gui/dialogs/help_menu.py" line="62"/>
        <source>&amp;Help</source>
        <extracomment>Where Qt for Python&apos;s licences and terms are (The Qt Company).</extracomment>
        <translation>ヘルプ(&amp;H)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/help_menu.py" line="65"/>
        <location filename="../../vramdesk/gui/dialogs/help_menu.py" line="131"/>
        <source>How the numbers are computed</source>
        <translation>数値の計算方法</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/help_menu.py" line="71"/>
        <location filename="../../vramdesk/gui/dialogs/help_menu.py" line="118"/>
        <source>About vramdesk</source>
        <translation>vramdesk について</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/help_menu.py" line="81"/>
        <source>Will this LLM fit in GPU memory under this traffic?</source>
        <translation>この LLM は、このトラフィックで GPU メモリに収まるか？</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/help_menu.py" line="84"/>
        <source>Licence: {0}</source>
        <translation>ライセンス: {0}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/help_menu.py" line="85"/>
        <source>Licence text: {0}</source>
        <translation>ライセンス文: {0}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/help_menu.py" line="88"/>
        <source>The window uses Qt for Python (PySide6 and Qt), under the GNU LGPL 3.0: its licences and terms are at {0}.</source>
        <translation>ウィンドウは Qt for Python (PySide6 と Qt) を GNU LGPL 3.0 のもとで使っています。そのライセンスと条件は {0} にあります。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/help_menu.py" line="93"/>
        <source>Python {0}, Qt {1}, PySide6 {2}</source>
        <translation>Python {0}、Qt {1}、PySide6 {2}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/help_menu.py" line="96"/>
        <source>Offline: nothing is sent anywhere. The command line gives the same numbers (vramdesk --help).</source>
        <translation>オフライン：どこにも何も送信しません。コマンドラインでも同じ数値が得られます（vramdesk --help）。</translation>
    </message>
</context>
<context>
    <name>InputError</name>
    <message>
        <location filename="../../vramdesk/gui/messages.py" line="21"/>
        <source>must be a divisor of num_attention_heads ({heads})</source>
        <extracomment>(code, parameters the template needs) -&gt; English template, marked for lupdate.</extracomment>
        <translation>num_attention_heads（{heads}）の約数にしてください</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/messages.py" line="24"/>
        <source>must be at least {min}, got {value}</source>
        <translation>{min} 以上にしてください（入力値 {value}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/messages.py" line="27"/>
        <source>must be at most {max}, got {value}</source>
        <translation>{max} 以下にしてください（入力値 {value}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/messages.py" line="30"/>
        <source>must be between {min} and {max}, got {value}</source>
        <translation>{min} から {max} の範囲にしてください（入力値 {value}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/messages.py" line="33"/>
        <source>must be a whole number, got {value}</source>
        <translation>整数を入力してください（入力値 {value}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/messages.py" line="34"/>
        <source>must be a number, got {value}</source>
        <translation>数値を入力してください（入力値 {value}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/messages.py" line="35"/>
        <source>is far too large, got {value}</source>
        <translation>大きすぎます（入力値 {value}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/messages.py" line="36"/>
        <source>is far too small, got {value}</source>
        <translation>小さすぎます（入力値 {value}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/messages.py" line="37"/>
        <source>is required</source>
        <translation>入力が必要です</translation>
    </message>
</context>
<context>
    <name>KvGrowthTab</name>
    <message>
        <location filename="../../vramdesk/gui/tabs/kv_growth.py" line="92"/>
        <source>context (tokens per sequence)</source>
        <extracomment>One colour per curve slot (Okabe-Ito): the grid&apos;s concurrencies, then the current one.</extracomment>
        <translation>コンテキスト（シーケンスあたりのトークン数）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/kv_growth.py" line="106"/>
        <source>KV budget</source>
        <translation>KV 予算</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/kv_growth.py" line="117"/>
        <source>this workload</source>
        <translation>このワークロード</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/kv_growth.py" line="186"/>
        <source>KV cache ({0})</source>
        <translation>KV キャッシュ（{0}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/kv_growth.py" line="215"/>
        <source>No KV budget on this GPU: {0}</source>
        <translation>この GPU には KV 予算がありません: {0}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/kv_growth.py" line="230"/>
        <location filename="../../vramdesk/gui/tabs/kv_growth.py" line="243"/>
        <source>{0} concurrent</source>
        <translation>同時 {0}</translation>
    </message>
</context>
<context>
    <name>LaunchCommandMenu</name>
    <message>
        <location filename="../../vramdesk/gui/dialogs/launch_command.py" line="50"/>
        <source>Paste launch command…</source>
        <translation>起動コマンドを貼り付け…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/launch_command.py" line="52"/>
        <source>Copy launch command</source>
        <translation>起動コマンドをコピー</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/launch_command.py" line="71"/>
        <source>(none)</source>
        <translation>(なし)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/launch_command.py" line="73"/>
        <source>Launch command read ({0})</source>
        <translation>起動コマンドを読み込みました ({0})</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/launch_command.py" line="74"/>
        <source>read: {0}</source>
        <translation>読み込み: {0}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/launch_command.py" line="75"/>
        <source>ignored: {0}</source>
        <translation>無視: {0}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/launch_command.py" line="78"/>
        <source>model {0}</source>
        <translation>モデル {0}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/launch_command.py" line="90"/>
        <source>{0} has no launch command: choose vLLM, SGLang, llama.cpp or Ollama</source>
        <translation>{0} には起動コマンドがありません: vLLM、SGLang、llama.cpp、Ollama のいずれかを選んでください</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/launch_command.py" line="96"/>
        <source>No solved scenario yet: try again in a moment</source>
        <translation>まだ解が出ていません: 少し待ってからもう一度お試しください</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/launch_command.py" line="110"/>
        <source>Launch command copied to the clipboard</source>
        <translation>起動コマンドをクリップボードにコピーしました</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/launch_command.py" line="117"/>
        <source>Paste launch command</source>
        <translation>起動コマンドを貼り付け</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/dialogs/launch_command.py" line="122"/>
        <source>A vllm serve, python -m sglang.launch_server, llama-server, ollama run or docker run command (lines joined at a trailing \):</source>
        <translation>vllm serve、python -m sglang.launch_server、llama-server、ollama run、docker run のコマンド (末尾の \ で行を連結):</translation>
    </message>
</context>
<context>
    <name>LocalModelsPanel</name>
    <message>
        <location filename="../../vramdesk/gui/panels/local_models.py" line="76"/>
        <source>Filter by name, source or format</source>
        <translation>名前・出所・形式で絞り込み</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/local_models.py" line="80"/>
        <source>Name</source>
        <translation>名前</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/local_models.py" line="80"/>
        <source>Source</source>
        <translation>出所</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/local_models.py" line="80"/>
        <source>Format</source>
        <translation>形式</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/local_models.py" line="80"/>
        <source>Size on disk</source>
        <translation>ディスク上のサイズ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/local_models.py" line="91"/>
        <source>Refresh</source>
        <translation>更新</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/local_models.py" line="93"/>
        <source>Add folder…</source>
        <translation>フォルダーを追加…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/local_models.py" line="95"/>
        <source>Use this model</source>
        <translation>このモデルを使う</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/local_models.py" line="150"/>
        <source>Looking for models on this machine…</source>
        <translation>このマシンのモデルを探しています…</translation>
    </message>
    <message numerus="yes">
        <location filename="../../vramdesk/gui/panels/local_models.py" line="166"/>
        <source>%n model(s) found so far…</source>
        <translation>
            <numerusform>これまでに %n 個のモデルが見つかりました…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../vramdesk/gui/panels/local_models.py" line="177"/>
        <source>%n model(s) found</source>
        <translation>
            <numerusform>%n 個のモデルが見つかりました</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../vramdesk/gui/panels/local_models.py" line="179"/>
        <source>%n could not be read</source>
        <translation>
            <numerusform>%n 個は読めませんでした</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/local_models.py" line="187"/>
        <source>The scan failed: {0}</source>
        <translation>走査に失敗しました: {0}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/local_models.py" line="242"/>
        <source>Cannot read {0}: {1}</source>
        <translation>{0} を読めません: {1}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/local_models.py" line="250"/>
        <source>Local: {0}</source>
        <translation>ローカル: {0}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/local_models.py" line="272"/>
        <source>vision projector not read: {0}</source>
        <translation>ビジョンプロジェクターを読めません: {0}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/local_models.py" line="276"/>
        <source>vision projector {0}: {1} bytes</source>
        <translation>ビジョンプロジェクター {0}: {1} バイト</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/local_models.py" line="279"/>
        <source>vision projector {0}: counted under llama.cpp only</source>
        <translation>ビジョンプロジェクター {0}: llama.cpp でのみ計上します</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/local_models.py" line="287"/>
        <source>Add a folder of models</source>
        <translation>モデルのフォルダーを追加</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="217"/>
        <source>Reverse solver</source>
        <extracomment>A window never shown (tests, a screenshot tool) scans for local models and queries the local GPUs after this delay (a shown one does it after its first paint). Once, on the event-loop turn after the first paint (in a window never shown: after ``AFTER_PAINT_FALLBACK_MS``); not when the window closes first. No geometry was restored: the window is placed from the screen alone.</extracomment>
        <translation>逆算</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="220"/>
        <source>Fits</source>
        <translation>収まるか</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="220"/>
        <source>KV growth</source>
        <translation>KV の増加</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="220"/>
        <source>Compare</source>
        <translation>比較</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="220"/>
        <source>Speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="330"/>
        <source>My presets</source>
        <translation>マイプリセット</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="339"/>
        <source>Local GPUs</source>
        <translation>ローカル GPU</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="342"/>
        <source>Models on this machine</source>
        <translation>このマシンのモデル</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="436"/>
        <source>&amp;File</source>
        <translation>ファイル(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="437"/>
        <source>Import model config…</source>
        <translation>モデル設定をインポート…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="440"/>
        <source>Calibrate from an engine log…</source>
        <translation>エンジンのログから較正…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="445"/>
        <source>&amp;Quit</source>
        <translation>終了(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="446"/>
        <source>&amp;View</source>
        <translation>表示(&amp;V)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="455"/>
        <source>Units</source>
        <translation>単位</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="465"/>
        <source>&amp;Language</source>
        <translation>言語(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="466"/>
        <source>System default</source>
        <translation>システムの既定</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="625"/>
        <source>Preset files set aside: </source>
        <translation>読めないプリセットファイルを退避しました: </translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="319"/>
        <source>Inputs</source>
        <extracomment>Tab index of each tab built on first use.</extracomment>
        <translation>入力</translation>
    </message>
</context>
<context>
    <name>ModelForm</name>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="42"/>
        <source>Model</source>
        <extracomment>A preset picked could not be loaded (the one-line reason). The path of a model imported and loaded (for File → Open recent).</extracomment>
        <translation>モデル</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="60"/>
        <source>Import config.json / model folder…</source>
        <translation>config.json / モデルフォルダーをインポート…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="64"/>
        <source>Preset</source>
        <translation>プリセット</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="68"/>
        <source>auto</source>
        <translation>自動</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="69"/>
        <source>not set</source>
        <translation>未設定</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="70"/>
        <source>Layers (num_hidden_layers)</source>
        <translation>層数（num_hidden_layers）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="71"/>
        <source>hidden_size</source>
        <translation>hidden_size</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="72"/>
        <source>Attention heads</source>
        <translation>アテンションヘッド数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="73"/>
        <source>KV heads (num_key_value_heads)</source>
        <translation>KV ヘッド数（num_key_value_heads）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="74"/>
        <source>head_dim</source>
        <translation>head_dim</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="75"/>
        <source>intermediate_size</source>
        <translation>intermediate_size</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="76"/>
        <source>vocab_size</source>
        <translation>vocab_size</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="77"/>
        <source>Tied embeddings</source>
        <translation>埋め込みを共有（tie_word_embeddings）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="78"/>
        <source>max_position_embeddings</source>
        <translation>max_position_embeddings</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="80"/>
        <source>the checkpoint (fixed)</source>
        <translation>チェックポイント（固定）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="81"/>
        <source>the shape (follows the fields)</source>
        <translation>形状（各欄に追従）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="83"/>
        <source>Parameter count from</source>
        <translation>パラメータ数の出所</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="86"/>
        <source>A preset or import pins the checkpoint&apos;s published parameter count (and its byte size), so shape edits do not move the weights. Choose the shape to compute the count from the layers, widths and vocabulary instead.</source>
        <translation>プリセットやインポートはチェックポイントの公表パラメータ数（とバイト数）に固定するため、形状を編集しても重みは変わりません。層数・幅・語彙から数えるには「形状」を選んでください。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="91"/>
        <source>Parameters</source>
        <translation>パラメーター数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="91"/>
        <source>computed from the shape</source>
        <translation>構成から計算</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="92"/>
        <source>MoE experts (0 = dense)</source>
        <translation>MoE エキスパート数（0 = 密）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="93"/>
        <source>Experts per token</source>
        <translation>トークンあたりのエキスパート数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="94"/>
        <source>Expert intermediate size</source>
        <translation>エキスパートの中間次元</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="95"/>
        <source>Shared experts</source>
        <translation>共有エキスパート数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="96"/>
        <source>Dense leading layers</source>
        <translation>先頭の密な層の数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="97"/>
        <source>Sliding window (tokens)</source>
        <translation>スライディングウィンドウ（トークン）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="97"/>
        <source>off</source>
        <translation>オフ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="99"/>
        <source>every layer slides</source>
        <translation>全層がスライディング</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="100"/>
        <source>no sliding layers</source>
        <translation>スライディング層なし</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="101"/>
        <source>alternating</source>
        <translation>交互</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="102"/>
        <source>5 local : 1 global</source>
        <translation>ローカル 5 : グローバル 1</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="103"/>
        <source>3 local : 1 global</source>
        <translation>ローカル 3 : グローバル 1</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="104"/>
        <source>per-layer list (from preset)</source>
        <translation>層ごとの一覧（プリセットから）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="106"/>
        <source>Sliding layers</source>
        <translation>スライディング層</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="107"/>
        <source>head_dim (derived)</source>
        <translation>head_dim（導出値）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="108"/>
        <source>GQA ratio</source>
        <translation>GQA 比</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="109"/>
        <source>Parameter count</source>
        <translation>パラメーター数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="110"/>
        <source>KV bytes per token</source>
        <translation>トークンあたりの KV バイト数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="131"/>
        <source> (shape gives {0:,})</source>
        <translation>（構成から計算すると {0:,}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="133"/>
        <source>, active {0:,}</source>
        <translation>、アクティブ {0:,}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="141"/>
        <source>the checkpoint: {0:,}</source>
        <translation>チェックポイント: {0:,}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="143"/>
        <source>the checkpoint (none loaded)</source>
        <translation>チェックポイント（読み込みなし）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="146"/>
        <source>the shape: {0:,}</source>
        <translation>形状: {0:,}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="163"/>
        <source> (bundled, read-only)</source>
        <translation>（同梱・読み取り専用）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="163"/>
        <source> (mine)</source>
        <translation>（ユーザー）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="191"/>
        <source>Custom (edited)</source>
        <translation>カスタム (編集済み)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="225"/>
        <source>Preset not loaded: {0}</source>
        <translation>プリセットを読み込めませんでした: {0}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="231"/>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="236"/>
        <source>Import a model config</source>
        <translation>モデル設定をインポート</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="233"/>
        <source>config.json (*.json);;All files (*)</source>
        <translation>config.json (*.json);;すべてのファイル (*)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="258"/>
        <source>Reading {0}…</source>
        <translation>{0} を読み込み中…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="259"/>
        <source>Cancel</source>
        <translation>キャンセル</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="265"/>
        <source>Import of {0} cancelled</source>
        <translation>{0} のインポートを取り消しました</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/model_form.py" line="281"/>
        <source>Imported: {0}</source>
        <translation>インポート: {0}</translation>
    </message>
</context>
<context>
    <name>PresetLibrary</name>
    <message>
        <location filename="../../vramdesk/gui/panels/library.py" line="117"/>
        <source>{0} (saved)</source>
        <extracomment>What each kind of preset stores from the current inputs (and the target GPU). A sentence for the status bar about a preset just applied (what it assumed). Every problem sentence seen since start (files moved aside), for the window to report.</extracomment>
        <translation>{0} (保存済み)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/library.py" line="122"/>
        <source>“{0}” was saved without a target GPU (by an older vramdesk): the target GPU chosen is kept</source>
        <translation>「{0}」はターゲット GPU なしで保存されています（古い vramdesk による保存）。選択中のターゲット GPU をそのまま使います</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/library.py" line="129"/>
        <source>“{0}” names the GPU {1}, which the catalog does not have: the target GPU chosen is kept</source>
        <translation>「{0}」が指定する GPU {1} はカタログにありません。選択中のターゲット GPU をそのまま使います</translation>
    </message>
</context>
<context>
    <name>PresetsPanel</name>
    <message>
        <location filename="../../vramdesk/gui/panels/presets.py" line="40"/>
        <source>Load</source>
        <translation>読み込む</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/presets.py" line="41"/>
        <source>Delete</source>
        <translation>削除</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/presets.py" line="42"/>
        <source>Save model…</source>
        <translation>モデルを保存…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/presets.py" line="43"/>
        <source>Save workload…</source>
        <translation>ワークロードを保存…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/presets.py" line="44"/>
        <source>Save scenario…</source>
        <translation>シナリオを保存…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/presets.py" line="45"/>
        <source>Rename…</source>
        <translation>名前を変更…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/presets.py" line="46"/>
        <source>Import file…</source>
        <translation>ファイルからインポート…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/presets.py" line="47"/>
        <source>Export file…</source>
        <translation>ファイルへエクスポート…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/presets.py" line="70"/>
        <source>Dismiss</source>
        <translation>閉じる</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/presets.py" line="117"/>
        <source>Saved {0} preset “{1}”</source>
        <translation>{0} プリセット「{1}」を保存しました</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/presets.py" line="151"/>
        <source>Exported to {0}</source>
        <translation>{0} にエクスポートしました</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/presets.py" line="156"/>
        <source>Save preset</source>
        <translation>プリセットを保存</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/presets.py" line="156"/>
        <source>Name of the {0} preset:</source>
        <translation>{0} プリセットの名前:</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/presets.py" line="165"/>
        <source>Rename preset</source>
        <translation>プリセットの名前を変更</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/presets.py" line="165"/>
        <source>New name:</source>
        <translation>新しい名前:</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/presets.py" line="170"/>
        <location filename="../../vramdesk/gui/panels/presets.py" line="172"/>
        <source>Import preset</source>
        <translation>プリセットをインポート</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/presets.py" line="178"/>
        <source>Export preset</source>
        <translation>プリセットをエクスポート</translation>
    </message>
</context>
<context>
    <name>RuntimeForm</name>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="30"/>
        <source>Runtime</source>
        <extracomment>Runtime fields and their defaults (the form&apos;s other fields are display conversions).</extracomment>
        <translation>ランタイム</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="31"/>
        <source>Engine</source>
        <translation>エンジン</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="32"/>
        <source>gpu_memory_utilization</source>
        <translation>gpu_memory_utilization</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="33"/>
        <source>KV block size (tokens)</source>
        <translation>KV ブロックサイズ（トークン）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="33"/>
        <source>unpaged</source>
        <translation>ページングなし</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="34"/>
        <source>Shared prefix (tokens)</source>
        <translation>共通プレフィックス（トークン）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="35"/>
        <source>Tensor parallel (TP)</source>
        <translation>テンソル並列（TP）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="36"/>
        <source>Pipeline parallel (PP)</source>
        <translation>パイプライン並列（PP）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="38"/>
        <source>Data parallel (DP)</source>
        <translation>データ並列 (DP)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="39"/>
        <source>Expert parallel (vLLM -ep)</source>
        <translation>エキスパート並列 (vLLM -ep)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="41"/>
        <source>Language model only (vLLM --language-model-only)</source>
        <translation>言語モデルのみ (vLLM --language-model-only)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="43"/>
        <source>Decode context parallel (vLLM -dcp)</source>
        <translation>デコードコンテキスト並列 (vLLM -dcp)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="44"/>
        <source>DP attention (SGLang)</source>
        <translation>DP アテンション (SGLang)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="45"/>
        <source>Expert parallel size (SGLang --ep-size)</source>
        <translation>エキスパート並列数 (SGLang --ep-size)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="47"/>
        <source>multiplier: (w + kv + act) x factor + fixed</source>
        <translation>乗数: (重み + KV + 活性化) × 係数 + 固定</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="48"/>
        <source>workspace: weights x fraction</source>
        <translation>ワークスペース: 重み × 比率</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="50"/>
        <source>Overhead form</source>
        <translation>オーバーヘッドの形式</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="51"/>
        <source>Overhead factor</source>
        <translation>オーバーヘッド係数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="52"/>
        <source>Fixed overhead (GiB)</source>
        <translation>固定オーバーヘッド（GiB）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="53"/>
        <source>Workspace fraction</source>
        <translation>ワークスペース比率</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="55"/>
        <source>Engine caps sliding layers at the window</source>
        <translation>スライディング層をウィンドウ長で打ち切る</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="58"/>
        <source>GPU layers (-ngl)</source>
        <translation>GPU に載せる層数 (n_gpu_layers)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="58"/>
        <source>all</source>
        <translation>全層</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="60"/>
        <source>Layers with experts in RAM (--n-cpu-moe)</source>
        <translation>エキスパートを RAM に置く層数 (--n-cpu-moe)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="60"/>
        <source>none</source>
        <translation>なし</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="62"/>
        <source>All experts in RAM (--cpu-moe)</source>
        <translation>全エキスパートを RAM に (--cpu-moe)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="64"/>
        <source>Flash attention (-fa)</source>
        <translation>フラッシュアテンション (flash_attn)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="63"/>
        <source>auto</source>
        <translation>自動</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="63"/>
        <source>on</source>
        <translation>オン</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="63"/>
        <source>off</source>
        <translation>オフ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="65"/>
        <source>Physical batch (-ub)</source>
        <translation>物理バッチ (n_ubatch)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="65"/>
        <source>512</source>
        <translation>512</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="66"/>
        <source>Slots (-np)</source>
        <translation>スロット数 (n_parallel)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="66"/>
        <source>= concurrency</source>
        <translation>= 同時実行数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="67"/>
        <source>Unified KV cache (-kvu)</source>
        <translation>統合 KV キャッシュ (kv_unified)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="68"/>
        <source>Full-size SWA cache (--swa-full)</source>
        <translation>スライディング窓のキャッシュを全長で確保 (swa_full)</translation>
    </message>
</context>
<context>
    <name>ScenarioController</name>
    <message>
        <location filename="../../vramdesk/gui/controller.py" line="177"/>
        <source>The figures use the last accepted values ({0}) until what was typed there is valid.</source>
        <extracomment>The set of refused typed fields changed (see :attr:`refused`, :meth:`stale_text`). The notes of the loaded model changed (see :attr:`model_notes`). The scenario&apos;s state machine; its events are relayed by the ``_on_session_*`` slots. The reverse solve runs here, off the GUI thread (``solveChanged`` when it is done).</extracomment>
        <translation>入力が有効になるまで、数値は最後に受け付けた値（{0}）で計算しています。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/controller.py" line="194"/>
        <source>not set</source>
        <translation>未設定</translation>
    </message>
</context>
<context>
    <name>SolverTab</name>
    <message>
        <location filename="../../vramdesk/gui/tabs/solver.py" line="58"/>
        <source>GPU capacity</source>
        <translation>GPU 容量</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/solver.py" line="59"/>
        <source>Usable for KV + activations</source>
        <translation>KV と活性化に使える量</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/solver.py" line="60"/>
        <source>KV cache budget</source>
        <translation>KV キャッシュの予算</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/solver.py" line="61"/>
        <source>vLLM would print</source>
        <translation>vLLM の表示</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/solver.py" line="62"/>
        <source>Max concurrency at the context</source>
        <translation>このコンテキストでの最大同時数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/solver.py" line="63"/>
        <source>Max context at the concurrency</source>
        <translation>この同時数での最大コンテキスト</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/solver.py" line="64"/>
        <source>Smallest GPU count (TP)</source>
        <translation>必要な最小 GPU 数（TP）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/solver.py" line="81"/>
        <source>Lever</source>
        <translation>対策</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/solver.py" line="81"/>
        <source>Value</source>
        <translation>値</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/solver.py" line="81"/>
        <source>Saves</source>
        <translation>削減量</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/solver.py" line="81"/>
        <source>Advice</source>
        <translation>助言</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/solver.py" line="45"/>
        <source>Fit advisor (when it does not fit): levers, most effective first</source>
        <extracomment>Solved values: bold, in the theme&apos;s &quot;solved&quot; colour (vramdesk.gui.theme.TEXT_COLOURS).</extracomment>
        <translation>収まらないときの対策（効果の大きい順）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/solver.py" line="115"/>
        <source>No capacity: pick a GPU or a custom size.</source>
        <extracomment>The widest share of the table each of Lever, Value and Saves may take: the rest is the advice&apos;s (at 1280 x 720 a long value left the advice 60 px, a word a line).</extracomment>
        <translation>容量がありません。GPU を選ぶか容量を指定してください。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../vramdesk/gui/tabs/solver.py" line="130"/>
        <source>{0} sequence of {1:,} tokens (exact {2:.4f})</source>
        <translation>
            <numerusform>{1:,} トークンを {0} シーケンス（厳密値 {2:.4f}）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../vramdesk/gui/tabs/solver.py" line="131"/>
        <source>{0} sequences of {1:,} tokens (exact {2:.4f})</source>
        <translation>
            <numerusform>{1:,} トークンを {0} シーケンス（厳密値 {2:.4f}）</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/solver.py" line="151"/>
        <source>{0:,} tokens (limited by {1})</source>
        <translation>{0:,} トークン（制約: {1}）</translation>
    </message>
</context>
<context>
    <name>SpeedChartTab</name>
    <message>
        <location filename="../../vramdesk/gui/tabs/speed_chart.py" line="107"/>
        <source>concurrency (live sequences)</source>
        <extracomment>Okabe-Ito: all sequences together, one sequence. How long a shown chart waits for the solve of a new breakdown before drawing without it. Padding of both log ranges, a fraction of the span on each side: the ranges end on a tick (a power of 4, a half-decade) and pyqtgraph drops a tick label that would cross the axis&apos;s end, so the end labels (``1K``, ``10,000``) need this room even on a short plot</extracomment>
        <translation>同時実行数（処理中のシーケンス）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/speed_chart.py" line="108"/>
        <source>decode tokens/s</source>
        <translation>デコード トークン/秒</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/speed_chart.py" line="121"/>
        <source>total, expected</source>
        <translation>合計・予想</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/speed_chart.py" line="126"/>
        <source>total, ceiling</source>
        <translation>合計・上限</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/speed_chart.py" line="131"/>
        <source>per seq., expected</source>
        <translation>シーケンスあたり・予想</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/speed_chart.py" line="136"/>
        <source>per seq., ceiling</source>
        <translation>シーケンスあたり・上限</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/speed_chart.py" line="158"/>
        <source>this workload</source>
        <translation>このワークロード</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/speed_chart.py" line="216"/>
        <source>Speed: pick a catalog GPU (its bandwidth and peak).</source>
        <translation>速度: カタログの GPU を選んでください（帯域幅とピーク性能）。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/speed_chart.py" line="254"/>
        <source>memory limit
1 sequence</source>
        <translation>メモリの上限
1 シーケンス</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/speed_chart.py" line="256"/>
        <source>memory limit
{0} sequences</source>
        <translation>メモリの上限
{0} シーケンス</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/speed_chart.py" line="272"/>
        <source>compute bound
from {0}</source>
        <translation>{0} から
演算律速</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/speed_chart.py" line="278"/>
        <source>Not even one sequence fits on {0}.</source>
        <translation>{0} には 1 シーケンスも収まりません。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/speed_chart.py" line="280"/>
        <source>The memory limit follows when the solve is done.</source>
        <translation>メモリの上限は求解が終わると表示されます。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/speed_chart.py" line="284"/>
        <source>Decode on {0} at {1} tokens per sequence; memory holds 1 sequence.</source>
        <translation>{0} で 1 シーケンスあたり {1} トークンのデコード。メモリには 1 シーケンスが収まります。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/speed_chart.py" line="290"/>
        <source>Decode on {0} at {1} tokens per sequence; memory holds {2} sequences.</source>
        <translation>{0} で 1 シーケンスあたり {1} トークンのデコード。メモリには {2} シーケンスが収まります。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/tabs/speed_chart.py" line="295"/>
        <source>Assumes: {0}</source>
        <translation>前提: {0}</translation>
    </message>
</context>
<context>
    <name>SpeedPanel</name>
    <message>
        <location filename="../../vramdesk/gui/panels/speed.py" line="55"/>
        <source>Speed: pick a catalog GPU (its bandwidth and peak).</source>
        <translation>速度: カタログの GPU を選んでください（帯域幅とピーク性能を使います）。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/panels/speed.py" line="60"/>
        <source>Decode {0} / ceiling {2} tokens/s per sequence ({1} / {3} in all)
Prefill {4} / ceiling {6} tokens/s; first token {5} s</source>
        <translation>デコード {0} / 上限 {2} tokens/s（1 系列あたり、全体で {1} / {3}）
プリフィル {4} / 上限 {6} tokens/s、最初のトークンまで {5} 秒</translation>
    </message>
</context>
<context>
    <name>TargetForm</name>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="116"/>
        <source>Target GPU</source>
        <translation>対象 GPU</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="117"/>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="129"/>
        <source>the capacity to check against, in the unit beside</source>
        <translation>照合する容量（右の単位で）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="141"/>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="160"/>
        <source>Custom capacity</source>
        <translation>容量を指定</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="169"/>
        <source>local GPU {0} (total, {1})</source>
        <translation>ローカル GPU {0}（総容量 {1}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="174"/>
        <source>local GPU {0} (free now)</source>
        <translation>ローカル GPU {0}（現在の空き）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/runtime_form.py" line="178"/>
        <source>{0} (not available now)</source>
        <translation>{0}（現在は利用不可）</translation>
    </message>
</context>
<context>
    <name>VerdictView</name>
    <message>
        <location filename="../../vramdesk/gui/panels/verdict.py" line="55"/>
        <source>No capacity to check against: pick a GPU.</source>
        <extracomment>state -&gt; (text colour, background): green, amber, red; readable on light themes.</extracomment>
        <translation>照合する容量がありません。GPU を選んでください。</translation>
    </message>
</context>
<context>
    <name>WeightsForm</name>
    <message>
        <location filename="../../vramdesk/gui/forms/workload_form.py" line="17"/>
        <source>Weight format</source>
        <translation>重みの形式</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/workload_form.py" line="18"/>
        <source> (approx.)</source>
        <translation>（近似）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/workload_form.py" line="19"/>
        <source>Format</source>
        <translation>形式</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/workload_form.py" line="20"/>
        <source>Group size</source>
        <translation>グループサイズ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/workload_form.py" line="20"/>
        <source>none</source>
        <translation>なし</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/workload_form.py" line="21"/>
        <source>Scale bits per group</source>
        <translation>グループあたりのスケールのビット数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/workload_form.py" line="22"/>
        <source>Zero-point bits per group</source>
        <translation>グループあたりのゼロ点のビット数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/workload_form.py" line="24"/>
        <source>auto (16-bit when group-quantized)</source>
        <translation>自動（グループ量子化なら 16 ビット）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/workload_form.py" line="25"/>
        <source>yes</source>
        <translation>はい</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/workload_form.py" line="26"/>
        <source>no</source>
        <translation>いいえ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/workload_form.py" line="28"/>
        <source>Embeddings unquantized</source>
        <translation>埋め込みを量子化しない</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/workload_form.py" line="29"/>
        <source>Only experts quantized</source>
        <translation>エキスパートのみ量子化</translation>
    </message>
</context>
<context>
    <name>WorkloadForm</name>
    <message>
        <location filename="../../vramdesk/gui/forms/workload_form.py" line="37"/>
        <source>Workload</source>
        <translation>ワークロード</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/workload_form.py" line="38"/>
        <source>Context (tokens per sequence)</source>
        <translation>コンテキスト（シーケンスあたりのトークン数）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/workload_form.py" line="40"/>
        <source>; 8k = 8,192 tokens</source>
        <translation>（8k = 8,192 トークン）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/workload_form.py" line="43"/>
        <source>Concurrent sequences</source>
        <translation>同時シーケンス数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/workload_form.py" line="46"/>
        <source>or live tokens in all</source>
        <translation>または保持トークン総数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/workload_form.py" line="49"/>
        <source>Prompt length (prefill)</source>
        <translation>プロンプト長（プリフィル）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/workload_form.py" line="49"/>
        <source>no prefill</source>
        <translation>プリフィルなし</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/workload_form.py" line="50"/>
        <source>Prefill chunk (tokens)</source>
        <translation>プリフィルのチャンク（トークン）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/workload_form.py" line="50"/>
        <source>off</source>
        <translation>オフ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/workload_form.py" line="51"/>
        <source>Live activation buffers</source>
        <translation>同時に生きている活性化バッファ数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/workload_form.py" line="52"/>
        <source>Logits for every position</source>
        <translation>全位置のロジットを保持</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/forms/workload_form.py" line="53"/>
        <source>KV cache dtype</source>
        <translation>KV キャッシュの型</translation>
    </message>
</context>
<context>
    <name>window</name>
    <message>
        <location filename="../../vramdesk/gui/window_state.py" line="61"/>
        <source>Last session not restored: {0}</source>
        <extracomment>``window`` below is the main window (its controller, form column, geometry and ``show_message``), typed as its Qt base so that this module does not import it back.</extracomment>
        <translation>前回のセッションを復元できませんでした: {0}</translation>
    </message>
</context>
</TS>
