<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ja_JP">
<context>
    <name>BoundForm</name>
    <message>
        <location filename="../../vramdesk/gui/binding.py" line="110"/>
        <source>a whole number from {0} to {1}</source>
        <extracomment>Background of a field the core refused (a palette colour keeps the native spin arrows). Longest error text shown in a form (the full text is in the tooltip). Longest unbroken run in a shown error before a zero-width space lets it wrap. InputError field names that are shown by a widget of another name.</extracomment>
        <translation>{0} から {1} までの整数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/binding.py" line="112"/>
        <source>; empty: {0}</source>
        <translation>（空欄: {0}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/binding.py" line="129"/>
        <source>a number from {0:g} to {1:g}</source>
        <translation>{0:g} から {1:g} までの数</translation>
    </message>
</context>
<context>
    <name>BreakdownChart</name>
    <message>
        <location filename="../../vramdesk/gui/chart.py" line="49"/>
        <source>estimate (per GPU)</source>
        <extracomment>Colours of the parts (weights, KV cache, activations, overhead), colour-blind safe (Okabe-Ito). The recurrent state of hybrid models (Mamba, gated DeltaNet), drawn only when present.</extracomment>
        <translation>見積もり（GPU あたり）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/chart.py" line="126"/>
        <source>total {0}</source>
        <translation>合計 {0}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/chart.py" line="138"/>
        <source>local free</source>
        <translation>ローカルの空き</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/chart.py" line="141"/>
        <source>memory per GPU ({0})</source>
        <translation>GPU あたりのメモリ（{0}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/chart.py" line="149"/>
        <source>local GPU {0} ({1})</source>
        <translation>ローカル GPU {0}（{1}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/chart.py" line="150"/>
        <source>custom</source>
        <translation>指定容量</translation>
    </message>
</context>
<context>
    <name>CalibrateDialog</name>
    <message>
        <location filename="../../vramdesk/gui/calibrate_dialog.py" line="78"/>
        <source>Calibrate from an engine log</source>
        <extracomment>At most this many characters of pasted text are parsed: the core&apos;s cap on a log file.</extracomment>
        <translation>エンジンのログから較正</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/calibrate_dialog.py" line="83"/>
        <source>Paste a vLLM, SGLang, llama.cpp or Ollama start-up log here</source>
        <translation>vLLM・SGLang・llama.cpp・Ollama の起動ログをここに貼り付けてください</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/calibrate_dialog.py" line="85"/>
        <source>Open log…</source>
        <translation>ログを開く…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/calibrate_dialog.py" line="95"/>
        <source>Figure</source>
        <translation>数値</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/calibrate_dialog.py" line="95"/>
        <source>Measured</source>
        <translation>実測</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/calibrate_dialog.py" line="95"/>
        <source>vramdesk</source>
        <translation>vramdesk</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/calibrate_dialog.py" line="95"/>
        <source>Difference</source>
        <translation>差</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/calibrate_dialog.py" line="107"/>
        <source>Preset name</source>
        <translation>プリセット名</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/calibrate_dialog.py" line="108"/>
        <source>Save as calibrated runtime</source>
        <translation>較正済みランタイムとして保存</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/calibrate_dialog.py" line="168"/>
        <source>Open engine log</source>
        <translation>エンジンのログを開く</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/calibrate_dialog.py" line="168"/>
        <source>Logs (*.log *.txt);;All files (*)</source>
        <translation>ログ (*.log *.txt);;すべてのファイル (*)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/calibrate_dialog.py" line="186"/>
        <source>Saved runtime preset “{0}”</source>
        <translation>ランタイムプリセット「{0}」を保存しました</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/calibrate_dialog.py" line="204"/>
        <source>No log yet</source>
        <translation>ログはまだありません</translation>
    </message>
</context>
<context>
    <name>CompareTab</name>
    <message>
        <location filename="../../vramdesk/gui/compare_tab.py" line="108"/>
        <source>capacity</source>
        <extracomment>Width of one bar of a group; the four parts plus the total sit side by side.</extracomment>
        <translation>容量</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/compare_tab.py" line="154"/>
        <source>This model: {0}</source>
        <translation>このモデル: {0}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/compare_tab.py" line="176"/>
        <source>memory per GPU ({0})</source>
        <translation>GPU あたりのメモリ（{0}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/compare_tab.py" line="183"/>
        <source>capacity {0}</source>
        <translation>容量 {0}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/compare_tab.py" line="205"/>
        <source>Preset</source>
        <translation>プリセット</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/compare_tab.py" line="207"/>
        <source>Error</source>
        <translation>エラー</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/compare_tab.py" line="208"/>
        <source>Fits</source>
        <translation>収まるか</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/compare_tab.py" line="210"/>
        <source>yes</source>
        <translation>はい</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/compare_tab.py" line="210"/>
        <source>no</source>
        <translation>いいえ</translation>
    </message>
</context>
<context>
    <name>Core</name>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="24"/>
        <source>Fits: {shape} need {need} of the {budget} KV budget ({spare} to spare)</source>
        <extracomment>Every core string the window may show (generated from the core&apos;s tables; see the test).</extracomment>
        <translation>収まります: {shape} に必要な {need}（KV 予算 {budget}、余裕 {spare}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="25"/>
        <source>Tight: {shape} fit the {budget} KV budget, but the estimated total {total} exceeds the {capacity} card</source>
        <translation>ぎりぎり: {shape} は KV 予算 {budget} に収まりますが、推定合計 {total} が容量 {capacity} を超えます</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="26"/>
        <source>Tight: {shape} fit the {budget} KV budget with only {spare} to spare</source>
        <translation>ぎりぎり: {shape} は KV 予算 {budget} に収まりますが、余裕は {spare} だけです</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="27"/>
        <source>Does not fit: {shape} need {need}, the KV budget is {budget} ({short} short)</source>
        <translation>収まりません: {shape} に {need} 必要ですが、KV 予算は {budget} です（{short} 不足）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="28"/>
        <source>Does not fit: the weights alone ({weights}) exceed the {capacity} card by {over}</source>
        <translation>収まりません: 重みだけ（{weights}）で容量 {capacity} を {over} 超えています</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="29"/>
        <source>Does not fit: weights and reserved memory leave no room for the KV cache ({over} over what the engine may use)</source>
        <translation>収まりません: 重みと予約メモリで KV キャッシュの余地がありません（エンジンが使える量を {over} 超過）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="30"/>
        <source>Estimated total {total} vs capacity {capacity}: {relation} (forward estimate, overhead included)</source>
        <translation>推定合計 {total}、容量 {capacity}: {relation}（順方向の見積もり、オーバーヘッド込み）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="31"/>
        <source>within the card</source>
        <translation>容量内</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="32"/>
        <source>over the card</source>
        <translation>容量超過</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="33"/>
        <source>{usable} for KV cache and activations</source>
        <translation>KV キャッシュと活性化に {usable}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="34"/>
        <source>none: the weights alone ({weights}) exceed the {capacity} card by {over}</source>
        <translation>なし: 重みだけ（{weights}）で容量 {capacity} を {over} 超えています</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="35"/>
        <source>none: weights and reserved memory exceed what the engine may use by {over}</source>
        <translation>なし: 重みと予約メモリがエンジンの使える量を {over} 超えています</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="36"/>
        <source>Store the KV cache in {value}</source>
        <translation>KV キャッシュを {value} で保持する</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="37"/>
        <source>Cap the context at {value} tokens</source>
        <translation>コンテキストを {value} トークンに制限する</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="38"/>
        <source>Cap concurrency at {value} sequences</source>
        <translation>同時実行数を {value} 系列に制限する</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="39"/>
        <source>Quantize the weights to {value}</source>
        <translation>重みを {value} に量子化する</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="40"/>
        <source>Quantizing the weights to {value}</source>
        <translation>重みを {value} に量子化すると</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="41"/>
        <source>Shard over {value} GPUs (tensor parallel)</source>
        <translation>{value} 台の GPU に分割する（テンソル並列）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="42"/>
        <source>{action}: saves {saves}</source>
        <translation>{action}: {saves} 節約</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="43"/>
        <source>{action}: saves {saves} per GPU</source>
        <translation>{action}: GPU あたり {saves} 節約</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="44"/>
        <source>{action} saves {saves} but is not enough: the fixed overhead alone exceeds the usable memory</source>
        <translation>{action} {saves} 節約できますが足りません: 固定オーバーヘッドだけで使えるメモリを超えています</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="45"/>
        <source>{action} saves {saves} but is not enough: the KV cache and activations alone ({need}) exceed the {room} left after overhead</source>
        <translation>{action} {saves} 節約できますが足りません: KV キャッシュと活性化だけで（{need}）、オーバーヘッド後に残る {room} を超えています</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="46"/>
        <source>{action}: saves {saves} (not enough alone)</source>
        <translation>{action}: {saves} 節約（これだけでは不足）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="47"/>
        <source>KV cache dtype</source>
        <translation>KV キャッシュの型</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="48"/>
        <source>Context</source>
        <translation>コンテキスト</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="49"/>
        <source>Concurrency</source>
        <translation>同時実行数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="50"/>
        <source>Weight format</source>
        <translation>重みの形式</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="51"/>
        <source>Tensor parallel</source>
        <translation>テンソル並列</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="52"/>
        <source>memory</source>
        <translation>メモリ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="53"/>
        <source>max_position_embeddings</source>
        <translation>max_position_embeddings</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="54"/>
        <source>the largest context vramdesk accepts</source>
        <translation>vramdesk が受け付ける最大コンテキスト</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="55"/>
        <source>Weights</source>
        <translation>重み</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="56"/>
        <source>KV cache</source>
        <translation>KV キャッシュ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="57"/>
        <source>Activations</source>
        <translation>活性化</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="58"/>
        <source>Overhead</source>
        <translation>オーバーヘッド</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="59"/>
        <source>Total</source>
        <translation>合計</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="60"/>
        <source>Recurrent state</source>
        <translation>再帰状態</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="61"/>
        <source>Activation peak</source>
        <translation>活性化のピーク</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="62"/>
        <source>Compute buffer</source>
        <translation>計算バッファ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="63"/>
        <source>Dequantization buffer</source>
        <translation>逆量子化バッファ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="64"/>
        <source>KV cache (device)</source>
        <translation>KV キャッシュ（デバイス上）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="65"/>
        <source>Non-torch memory</source>
        <translation>torch 外のメモリ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="66"/>
        <source>Ollama reserve</source>
        <translation>Ollama の予約</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="67"/>
        <source>Overhead (multiplier)</source>
        <translation>オーバーヘッド（乗数）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="68"/>
        <source>Overhead (workspace)</source>
        <translation>オーバーヘッド（ワークスペース）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="69"/>
        <source>Weights (device)</source>
        <translation>重み（デバイス上）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="70"/>
        <source>The NVIDIA binding (the nvidia-ml-py package, module pynvml) is not installed. vramdesk works without a GPU; estimates are unaffected.</source>
        <translation>NVIDIA のバインディング（nvidia-ml-py パッケージ、pynvml モジュール）がインストールされていません。vramdesk は GPU なしでも動作し、見積もりに影響はありません。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="71"/>
        <source>No NVIDIA driver found: the NVML library (libnvidia-ml.so.1) is not installed. vramdesk works without a GPU; estimates are unaffected.</source>
        <translation>NVIDIA ドライバーが見つかりません（NVML ライブラリ libnvidia-ml.so.1 がありません）。vramdesk は GPU なしでも動作し、見積もりに影響はありません。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="72"/>
        <source>The NVIDIA driver is installed but not loaded (is the kernel module running?). vramdesk works without a GPU; estimates are unaffected.</source>
        <translation>NVIDIA ドライバーはインストールされていますが読み込まれていません（カーネルモジュールは動いていますか？）。vramdesk は GPU なしでも動作し、見積もりに影響はありません。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="73"/>
        <source>The NVIDIA driver and its NVML library differ in version (a driver update without a reboot?). Reboot or reload the driver to read the GPUs.</source>
        <translation>NVIDIA ドライバーと NVML ライブラリのバージョンが異なります（再起動せずにドライバーを更新しましたか？）。GPU を読むには再起動するかドライバーを読み込み直してください。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="74"/>
        <source>Permission denied reading the NVIDIA GPUs (check access to /dev/nvidia*).</source>
        <translation>NVIDIA GPU を読む権限がありません（/dev/nvidia* へのアクセスを確認してください）。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="75"/>
        <source>The NVIDIA driver is loaded but reports no GPU.</source>
        <translation>NVIDIA ドライバーは読み込まれていますが、GPU が報告されません。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="76"/>
        <source>A GPU stopped answering (NVML: GPU is lost or needs a reset).</source>
        <translation>GPU が応答しなくなりました（NVML: GPU が失われたか、リセットが必要です）。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="77"/>
        <source>This GPU or driver does not report memory through NVML.</source>
        <translation>この GPU またはドライバーは NVML でメモリを報告しません。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="78"/>
        <source>NVML failed with an unexpected error.</source>
        <translation>NVML が予期しないエラーで失敗しました。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="79"/>
        <source>MLA cache expanded to per-head K and V (older llama.cpp layout)</source>
        <translation>MLA キャッシュをヘッドごとの K と V に展開（古い llama.cpp の配置）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="80"/>
        <source>MLA cache is the compressed latent (vLLM/SGLang layout), replicated on every TP rank</source>
        <translation>MLA キャッシュは圧縮された潜在ベクトル（vLLM/SGLang の配置）で、各 TP ランクに複製</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="81"/>
        <source>SGLang leaves total * ({0} - mem_fraction_static) for activations and CUDA graphs</source>
        <translation>SGLang は活性化と CUDA グラフ用に total * ({0} - mem_fraction_static) を残す</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="82"/>
        <source>V1 non-torch memory + NCCL buffers when TP/PP &gt; {0} (fitted)</source>
        <translation>V1 の torch 外メモリ + TP/PP &gt; {0} のときの NCCL バッファ（当てはめ値）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="83"/>
        <source>context_tokens {0} exceeds max_position_embeddings {1}: computed anyway (rope scaling may allow it)</source>
        <translation>context_tokens {0} が max_position_embeddings {1} を超えています: そのまま計算しました（RoPE スケーリングで可能な場合があります）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="84"/>
        <source>embeddings and output head kept {0}-bit, as real checkpoints store them</source>
        <translation>埋め込みと出力ヘッドは実際のチェックポイントと同じく {0} ビットのまま</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="85"/>
        <source>factor {0} covers allocator fragmentation; fixed {1} GiB covers the CUDA context and workspaces</source>
        <translation>係数 {0} はアロケーターの断片化分、固定 {1} GiB は CUDA コンテキストとワークスペース分</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="86"/>
        <source>fitted to published vLLM logs; +-{0} % across models: calibrate from a start-up log</source>
        <translation>公開された vLLM ログへの当てはめ値。モデル間で ±{0} %: 起動ログから較正してください</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="87"/>
        <source>group quantization: {0} + ({1} + {2}) / {3} = {4} bits per weight</source>
        <translation>グループ量子化: {0} + ({1} + {2}) / {3} = 重みあたり {4} ビット</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="88"/>
        <source>live_buffers = {0} is an assumption; calibrate it by measurement</source>
        <translation>live_buffers = {0} は仮定です。測定で較正してください</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="89"/>
        <source>max(hidden * intermediate, hidden * heads * head_dim) * {0} (bitsandbytes only)</source>
        <translation>max(hidden * intermediate, hidden * heads * head_dim) * {0}（bitsandbytes のみ）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="90"/>
        <source>modelled within about {0} %: calibrate from the log&apos;s compute buffer line</source>
        <translation>誤差は約 {0} %: ログの compute buffer 行から較正してください</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="91"/>
        <source>the CUDA context (about {0}-{1} GiB) is outside llama.cpp&apos;s buffers</source>
        <translation>CUDA コンテキスト（約 {0}-{1} GiB）は llama.cpp のバッファ外</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="92"/>
        <source>the input embedding ({0} bytes) stays in host memory</source>
        <translation>入力埋め込み（{0} バイト）はホストメモリに置かれる</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="93"/>
        <source>torch.cuda.max_memory_allocated excludes the CUDA context</source>
        <translation>torch.cuda.max_memory_allocated は CUDA コンテキストを含まない</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="94"/>
        <source>vocabulary padded to {0} rows and a {1}-bit RoPE cos/sin cache on each GPU (vLLM/SGLang VocabParallelEmbedding and rotary embedding)</source>
        <translation>語彙を {0} 行単位に詰め、各 GPU に {1} ビットの RoPE cos/sin キャッシュ（vLLM/SGLang の VocabParallelEmbedding と回転埋め込み）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="95"/>
        <source>{0} (give a prompt length to model the prefill peak)</source>
        <translation>{0}（プロンプト長を入れるとプリフィルのピークを見積もります）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="96"/>
        <source>{0} (no prefill modelled)</source>
        <translation>{0}（プリフィルは見積もりなし）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="97"/>
        <source>{0} (not in llama.cpp&apos;s buffers)</source>
        <translation>{0}（llama.cpp のバッファ外）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="98"/>
        <source>{0} MiB per GPU (discover/gpu.go); OLLAMA_GPU_OVERHEAD defaults to {1}</source>
        <translation>GPU あたり {0} MiB（discover/gpu.go）。OLLAMA_GPU_OVERHEAD の既定は {1}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="99"/>
        <source>{0} cells (padded to {1})</source>
        <translation>{0} セル（{1} 単位に詰める）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/core_text.py" line="100"/>
        <source>{0} sliding-window layers cache at most {1} tokens per sequence</source>
        <translation>スライディングウィンドウ層 {0} 層は系列あたり最大 {1} トークンをキャッシュ</translation>
    </message>
</context>
<context>
    <name>ExportMenu</name>
    <message>
        <location filename="../../vramdesk/gui/export_menu.py" line="29"/>
        <source>Export chart (PNG/SVG)…</source>
        <translation>グラフをエクスポート（PNG/SVG）…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/export_menu.py" line="30"/>
        <source>Export breakdown (CSV/Markdown/JSON)…</source>
        <translation>内訳をエクスポート（CSV/Markdown/JSON）…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/export_menu.py" line="31"/>
        <source>Export comparison (CSV/Markdown/JSON)…</source>
        <translation>比較をエクスポート（CSV/Markdown/JSON）…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/export_menu.py" line="32"/>
        <source>Copy breakdown as Markdown</source>
        <translation>内訳を Markdown でコピー</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/export_menu.py" line="33"/>
        <source>Copy comparison as Markdown</source>
        <translation>比較を Markdown でコピー</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/export_menu.py" line="43"/>
        <source>Saved {0}</source>
        <translation>{0} を保存しました</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/export_menu.py" line="74"/>
        <source>Breakdown copied to the clipboard</source>
        <translation>内訳をクリップボードにコピーしました</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/export_menu.py" line="80"/>
        <source>Comparison copied to the clipboard</source>
        <translation>比較をクリップボードにコピーしました</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/export_menu.py" line="85"/>
        <source>Export chart</source>
        <translation>グラフをエクスポート</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/export_menu.py" line="92"/>
        <source>Export breakdown</source>
        <translation>内訳をエクスポート</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/export_menu.py" line="99"/>
        <source>Export comparison</source>
        <translation>比較をエクスポート</translation>
    </message>
</context>
<context>
    <name>FiguresTable</name>
    <message>
        <location filename="../../vramdesk/gui/figures_table.py" line="34"/>
        <source>Part</source>
        <translation>項目</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/figures_table.py" line="34"/>
        <source>Bytes</source>
        <translation>バイト</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/figures_table.py" line="34"/>
        <source>Size</source>
        <translation>サイズ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/figures_table.py" line="69"/>
        <source>Size ({0})</source>
        <translation>サイズ ({0})</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/figures_table.py" line="93"/>
        <source>Total</source>
        <translation>合計</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/figures_table.py" line="103"/>
        <source>Import notes:</source>
        <translation>インポート時の注記:</translation>
    </message>
</context>
<context>
    <name>FitsTab</name>
    <message>
        <location filename="../../vramdesk/gui/fits_tab.py" line="31"/>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/fits_tab.py" line="32"/>
        <source>Capacity</source>
        <translation>容量</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/fits_tab.py" line="33"/>
        <source>Needs</source>
        <translation>必要量</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/fits_tab.py" line="34"/>
        <source>Headroom</source>
        <translation>余裕</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/fits_tab.py" line="35"/>
        <source>Verdict</source>
        <translation>判定</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/fits_tab.py" line="54"/>
        <source>✔ fits</source>
        <translation>✔ 収まる</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/fits_tab.py" line="54"/>
        <source>✘ does not fit</source>
        <translation>✘ 収まらない</translation>
    </message>
</context>
<context>
    <name>GpuPanel</name>
    <message>
        <location filename="../../vramdesk/gui/gpu_panel.py" line="121"/>
        <source>Refresh</source>
        <extracomment>Auto-refresh interval limits, seconds.</extracomment>
        <translation>更新</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/gpu_panel.py" line="122"/>
        <source>Auto-refresh every</source>
        <translation>自動更新の間隔</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/gpu_panel.py" line="125"/>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/gpu_panel.py" line="221"/>
        <source>Could not read the GPUs: {0}</source>
        <translation>GPU を読み取れませんでした: {0}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/gpu_panel.py" line="252"/>
        <source>{0} used of {1} · {2} free</source>
        <translation>{1} 中 {0} 使用 · {2} 空き</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/gpu_panel.py" line="259"/>
        <source>MIG {0}: {1} free of {2}</source>
        <translation>MIG {0}: {2} 中 {1} 空き</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/gpu_panel.py" line="272"/>
        <source>memory not reported</source>
        <translation>メモリ情報なし</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/gpu_panel.py" line="277"/>
        <source>Driver {0}</source>
        <translation>ドライバー {0}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/gpu_panel.py" line="279"/>
        <source> · CUDA {0}</source>
        <translation> · CUDA {0}</translation>
    </message>
</context>
<context>
    <name>InputError</name>
    <message>
        <location filename="../../vramdesk/gui/messages.py" line="19"/>
        <source>must be a divisor of num_attention_heads ({heads})</source>
        <extracomment>(code, parameters the template needs) -&gt; English template, marked for lupdate.</extracomment>
        <translation>num_attention_heads（{heads}）の約数にしてください</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/messages.py" line="22"/>
        <source>must be at least {min}, got {value}</source>
        <translation>{min} 以上にしてください（入力値 {value}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/messages.py" line="25"/>
        <source>must be at most {max}, got {value}</source>
        <translation>{max} 以下にしてください（入力値 {value}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/messages.py" line="28"/>
        <source>must be between {min} and {max}, got {value}</source>
        <translation>{min} から {max} の範囲にしてください（入力値 {value}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/messages.py" line="31"/>
        <source>must be a whole number, got {value}</source>
        <translation>整数を入力してください（入力値 {value}）</translation>
    </message>
</context>
<context>
    <name>KvGrowthTab</name>
    <message>
        <location filename="../../vramdesk/gui/kv_growth_tab.py" line="47"/>
        <source>context (tokens per sequence)</source>
        <extracomment>One colour per curve slot (Okabe-Ito): the grid&apos;s concurrencies, then the current one.</extracomment>
        <translation>コンテキスト（シーケンスあたりのトークン数）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/kv_growth_tab.py" line="62"/>
        <source>KV budget</source>
        <translation>KV 予算</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/kv_growth_tab.py" line="73"/>
        <source>this workload</source>
        <translation>このワークロード</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/kv_growth_tab.py" line="125"/>
        <source>KV cache ({0})</source>
        <translation>KV キャッシュ（{0}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/kv_growth_tab.py" line="146"/>
        <source>No KV budget on this GPU: {0}</source>
        <translation>この GPU には KV 予算がありません: {0}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/kv_growth_tab.py" line="161"/>
        <location filename="../../vramdesk/gui/kv_growth_tab.py" line="174"/>
        <source>{0} concurrent</source>
        <translation>同時 {0}</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="137"/>
        <source>Reverse solver</source>
        <translation>逆算</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="138"/>
        <source>Fits</source>
        <translation>収まるか</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="139"/>
        <source>KV growth</source>
        <translation>KV の増加</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="140"/>
        <source>Compare</source>
        <translation>比較</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="151"/>
        <source>My presets</source>
        <translation>マイプリセット</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="155"/>
        <source>Local GPUs</source>
        <translation>ローカル GPU</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="182"/>
        <source>&amp;File</source>
        <translation>ファイル(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="183"/>
        <source>Import model config…</source>
        <translation>モデル設定をインポート…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="185"/>
        <source>Calibrate from an engine log…</source>
        <translation>エンジンのログから較正…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="188"/>
        <source>&amp;Quit</source>
        <translation>終了(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="189"/>
        <source>&amp;View</source>
        <translation>表示(&amp;V)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="197"/>
        <source>Units</source>
        <translation>単位</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="204"/>
        <source>&amp;Language</source>
        <translation>言語(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="205"/>
        <source>System default</source>
        <translation>システムの既定</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/main_window.py" line="272"/>
        <source>Preset files set aside: </source>
        <translation>読めないプリセットファイルを退避しました: </translation>
    </message>
</context>
<context>
    <name>ModelForm</name>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="34"/>
        <source>Model</source>
        <translation>モデル</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="51"/>
        <source>Import config.json / model folder…</source>
        <translation>config.json / モデルフォルダーをインポート…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="55"/>
        <source>Preset</source>
        <translation>プリセット</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="59"/>
        <source>auto</source>
        <translation>自動</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="60"/>
        <source>not set</source>
        <translation>未設定</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="61"/>
        <source>Layers (num_hidden_layers)</source>
        <translation>層数（num_hidden_layers）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="62"/>
        <source>hidden_size</source>
        <translation>hidden_size</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="63"/>
        <source>Attention heads</source>
        <translation>アテンションヘッド数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="64"/>
        <source>KV heads (num_key_value_heads)</source>
        <translation>KV ヘッド数（num_key_value_heads）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="65"/>
        <source>head_dim</source>
        <translation>head_dim</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="66"/>
        <source>intermediate_size</source>
        <translation>intermediate_size</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="67"/>
        <source>vocab_size</source>
        <translation>vocab_size</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="68"/>
        <source>Tied embeddings</source>
        <translation>埋め込みを共有（tie_word_embeddings）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="69"/>
        <source>max_position_embeddings</source>
        <translation>max_position_embeddings</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="71"/>
        <source>the checkpoint (fixed)</source>
        <translation>チェックポイント（固定）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="72"/>
        <source>the shape (follows the fields)</source>
        <translation>形状（各欄に追従）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="74"/>
        <source>Parameter count from</source>
        <translation>パラメータ数の出所</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="77"/>
        <source>A preset or import pins the checkpoint&apos;s published parameter count (and its byte size), so shape edits do not move the weights. Choose the shape to compute the count from the layers, widths and vocabulary instead.</source>
        <translation>プリセットやインポートはチェックポイントの公表パラメータ数（とバイト数）に固定するため、形状を編集しても重みは変わりません。層数・幅・語彙から数えるには「形状」を選んでください。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="82"/>
        <source>Parameters</source>
        <translation>パラメーター数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="82"/>
        <source>computed from the shape</source>
        <translation>構成から計算</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="83"/>
        <source>MoE experts (0 = dense)</source>
        <translation>MoE エキスパート数（0 = 密）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="84"/>
        <source>Experts per token</source>
        <translation>トークンあたりのエキスパート数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="85"/>
        <source>Expert intermediate size</source>
        <translation>エキスパートの中間次元</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="86"/>
        <source>Shared experts</source>
        <translation>共有エキスパート数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="87"/>
        <source>Dense leading layers</source>
        <translation>先頭の密な層の数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="88"/>
        <source>Sliding window (tokens)</source>
        <translation>スライディングウィンドウ（トークン）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="88"/>
        <source>off</source>
        <translation>オフ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="90"/>
        <source>every layer slides</source>
        <translation>全層がスライディング</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="91"/>
        <source>no sliding layers</source>
        <translation>スライディング層なし</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="92"/>
        <source>alternating</source>
        <translation>交互</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="93"/>
        <source>5 local : 1 global</source>
        <translation>ローカル 5 : グローバル 1</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="94"/>
        <source>3 local : 1 global</source>
        <translation>ローカル 3 : グローバル 1</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="95"/>
        <source>per-layer list (from preset)</source>
        <translation>層ごとの一覧（プリセットから）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="97"/>
        <source>Sliding layers</source>
        <translation>スライディング層</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="98"/>
        <source>head_dim (derived)</source>
        <translation>head_dim（導出値）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="99"/>
        <source>GQA ratio</source>
        <translation>GQA 比</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="100"/>
        <source>Parameter count</source>
        <translation>パラメーター数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="101"/>
        <source>KV bytes per token</source>
        <translation>トークンあたりの KV バイト数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="122"/>
        <source> (shape gives {0:,})</source>
        <translation>（構成から計算すると {0:,}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="124"/>
        <source>, active {0:,}</source>
        <translation>、アクティブ {0:,}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="132"/>
        <source>the checkpoint: {0:,}</source>
        <translation>チェックポイント: {0:,}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="134"/>
        <source>the checkpoint (none loaded)</source>
        <translation>チェックポイント（読み込みなし）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="137"/>
        <source>the shape: {0:,}</source>
        <translation>形状: {0:,}</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="153"/>
        <source> (bundled, read-only)</source>
        <translation>（同梱・読み取り専用）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="153"/>
        <source> (mine)</source>
        <translation>（ユーザー）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="183"/>
        <source>Custom (edited)</source>
        <translation>カスタム (編集済み)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="195"/>
        <location filename="../../vramdesk/gui/model_form.py" line="200"/>
        <source>Import a model config</source>
        <translation>モデル設定をインポート</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="197"/>
        <source>config.json (*.json);;All files (*)</source>
        <translation>config.json (*.json);;すべてのファイル (*)</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/model_form.py" line="218"/>
        <source>Imported: {0}</source>
        <translation>インポート: {0}</translation>
    </message>
</context>
<context>
    <name>PresetLibrary</name>
    <message>
        <location filename="../../vramdesk/gui/library.py" line="80"/>
        <source>{0} (saved)</source>
        <extracomment>What each kind of preset stores from the current inputs. Every problem sentence seen since start (files moved aside), for the window to report.</extracomment>
        <translation>{0} (保存済み)</translation>
    </message>
</context>
<context>
    <name>PresetsPanel</name>
    <message>
        <location filename="../../vramdesk/gui/presets_panel.py" line="40"/>
        <source>Load</source>
        <translation>読み込む</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/presets_panel.py" line="41"/>
        <source>Delete</source>
        <translation>削除</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/presets_panel.py" line="42"/>
        <source>Save model…</source>
        <translation>モデルを保存…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/presets_panel.py" line="43"/>
        <source>Save workload…</source>
        <translation>ワークロードを保存…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/presets_panel.py" line="44"/>
        <source>Save scenario…</source>
        <translation>シナリオを保存…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/presets_panel.py" line="45"/>
        <source>Rename…</source>
        <translation>名前を変更…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/presets_panel.py" line="46"/>
        <source>Import file…</source>
        <translation>ファイルからインポート…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/presets_panel.py" line="47"/>
        <source>Export file…</source>
        <translation>ファイルへエクスポート…</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/presets_panel.py" line="67"/>
        <source>Dismiss</source>
        <translation>閉じる</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/presets_panel.py" line="114"/>
        <source>Saved {0} preset “{1}”</source>
        <translation>{0} プリセット「{1}」を保存しました</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/presets_panel.py" line="148"/>
        <source>Exported to {0}</source>
        <translation>{0} にエクスポートしました</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/presets_panel.py" line="153"/>
        <source>Save preset</source>
        <translation>プリセットを保存</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/presets_panel.py" line="153"/>
        <source>Name of the {0} preset:</source>
        <translation>{0} プリセットの名前:</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/presets_panel.py" line="162"/>
        <source>Rename preset</source>
        <translation>プリセットの名前を変更</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/presets_panel.py" line="162"/>
        <source>New name:</source>
        <translation>新しい名前:</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/presets_panel.py" line="167"/>
        <location filename="../../vramdesk/gui/presets_panel.py" line="169"/>
        <source>Import preset</source>
        <translation>プリセットをインポート</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/presets_panel.py" line="175"/>
        <source>Export preset</source>
        <translation>プリセットをエクスポート</translation>
    </message>
</context>
<context>
    <name>RuntimeForm</name>
    <message>
        <location filename="../../vramdesk/gui/runtime_form.py" line="24"/>
        <source>Runtime</source>
        <translation>ランタイム</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/runtime_form.py" line="25"/>
        <source>Engine</source>
        <translation>エンジン</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/runtime_form.py" line="26"/>
        <source>gpu_memory_utilization</source>
        <translation>gpu_memory_utilization</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/runtime_form.py" line="27"/>
        <source>KV block size (tokens)</source>
        <translation>KV ブロックサイズ（トークン）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/runtime_form.py" line="27"/>
        <source>unpaged</source>
        <translation>ページングなし</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/runtime_form.py" line="28"/>
        <source>Shared prefix (tokens)</source>
        <translation>共通プレフィックス（トークン）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/runtime_form.py" line="29"/>
        <source>Tensor parallel (TP)</source>
        <translation>テンソル並列（TP）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/runtime_form.py" line="30"/>
        <source>Pipeline parallel (PP)</source>
        <translation>パイプライン並列（PP）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/runtime_form.py" line="32"/>
        <source>multiplier: (w + kv + act) x factor + fixed</source>
        <translation>乗数: (重み + KV + 活性化) × 係数 + 固定</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/runtime_form.py" line="33"/>
        <source>workspace: weights x fraction</source>
        <translation>ワークスペース: 重み × 比率</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/runtime_form.py" line="35"/>
        <source>Overhead form</source>
        <translation>オーバーヘッドの形式</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/runtime_form.py" line="36"/>
        <source>Overhead factor</source>
        <translation>オーバーヘッド係数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/runtime_form.py" line="37"/>
        <source>Fixed overhead (GiB)</source>
        <translation>固定オーバーヘッド（GiB）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/runtime_form.py" line="38"/>
        <source>Workspace fraction</source>
        <translation>ワークスペース比率</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/runtime_form.py" line="40"/>
        <source>Engine caps sliding layers at the window</source>
        <translation>スライディング層をウィンドウ長で打ち切る</translation>
    </message>
</context>
<context>
    <name>ScenarioController</name>
    <message>
        <location filename="../../vramdesk/gui/controller.py" line="222"/>
        <source>The figures use the last accepted values ({0}) until what was typed there is valid.</source>
        <extracomment>The set of refused typed fields changed (see :attr:`refused`, :meth:`stale_text`). The notes of the loaded model changed (see :attr:`model_notes`). What the import of the loaded model assumed (fp32 storage, defaults filled in, ...).</extracomment>
        <translation>入力が有効になるまで、数値は最後に受け付けた値（{0}）で計算しています。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/controller.py" line="238"/>
        <source>not set</source>
        <translation>未設定</translation>
    </message>
</context>
<context>
    <name>SolverTab</name>
    <message>
        <location filename="../../vramdesk/gui/solver_tab.py" line="53"/>
        <source>GPU capacity</source>
        <translation>GPU 容量</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/solver_tab.py" line="54"/>
        <source>Usable for KV + activations</source>
        <translation>KV と活性化に使える量</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/solver_tab.py" line="55"/>
        <source>KV cache budget</source>
        <translation>KV キャッシュの予算</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/solver_tab.py" line="56"/>
        <source>vLLM would print</source>
        <translation>vLLM の表示</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/solver_tab.py" line="57"/>
        <source>Max concurrency at the context</source>
        <translation>このコンテキストでの最大同時数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/solver_tab.py" line="58"/>
        <source>Max context at the concurrency</source>
        <translation>この同時数での最大コンテキスト</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/solver_tab.py" line="59"/>
        <source>Smallest GPU count (TP)</source>
        <translation>必要な最小 GPU 数（TP）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/solver_tab.py" line="77"/>
        <source>Lever</source>
        <translation>対策</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/solver_tab.py" line="77"/>
        <source>Value</source>
        <translation>値</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/solver_tab.py" line="77"/>
        <source>Saves</source>
        <translation>削減量</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/solver_tab.py" line="77"/>
        <source>Advice</source>
        <translation>助言</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/solver_tab.py" line="42"/>
        <source>Fit advisor (when it does not fit): levers, most effective first</source>
        <translation>収まらないときの対策（効果の大きい順）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/solver_tab.py" line="100"/>
        <source>No capacity: pick a GPU or a custom size.</source>
        <translation>容量がありません。GPU を選ぶか容量を指定してください。</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/solver_tab.py" line="117"/>
        <source>{0} sequences of {1:,} tokens (exact {2:.4f})</source>
        <translation>{1:,} トークンを {0} シーケンス（厳密値 {2:.4f}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/solver_tab.py" line="122"/>
        <source>{0:,} tokens (limited by {1})</source>
        <translation>{0:,} トークン（制約: {1}）</translation>
    </message>
</context>
<context>
    <name>TargetForm</name>
    <message>
        <location filename="../../vramdesk/gui/runtime_form.py" line="63"/>
        <source>Target GPU</source>
        <translation>対象 GPU</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/runtime_form.py" line="64"/>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/runtime_form.py" line="76"/>
        <source>the capacity to check against, in the unit beside</source>
        <translation>照合する容量（右の単位で）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/runtime_form.py" line="88"/>
        <location filename="../../vramdesk/gui/runtime_form.py" line="107"/>
        <source>Custom capacity</source>
        <translation>容量を指定</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/runtime_form.py" line="113"/>
        <source>local GPU {0} (total, {1})</source>
        <translation>ローカル GPU {0}（総容量 {1}）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/runtime_form.py" line="118"/>
        <source>local GPU {0} (free now)</source>
        <translation>ローカル GPU {0}（現在の空き）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/runtime_form.py" line="122"/>
        <source>{0} (not available now)</source>
        <translation>{0}（現在は利用不可）</translation>
    </message>
</context>
<context>
    <name>VerdictView</name>
    <message>
        <location filename="../../vramdesk/gui/verdict_view.py" line="51"/>
        <source>No capacity to check against: pick a GPU.</source>
        <extracomment>state -&gt; (text colour, background): green, amber, red; readable on light themes.</extracomment>
        <translation>照合する容量がありません。GPU を選んでください。</translation>
    </message>
</context>
<context>
    <name>WeightsForm</name>
    <message>
        <location filename="../../vramdesk/gui/workload_form.py" line="17"/>
        <source>Weight format</source>
        <translation>重みの形式</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/workload_form.py" line="18"/>
        <source> (approx.)</source>
        <translation>（近似）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/workload_form.py" line="19"/>
        <source>Format</source>
        <translation>形式</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/workload_form.py" line="20"/>
        <source>Group size</source>
        <translation>グループサイズ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/workload_form.py" line="20"/>
        <source>none</source>
        <translation>なし</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/workload_form.py" line="21"/>
        <source>Scale bits per group</source>
        <translation>グループあたりのスケールのビット数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/workload_form.py" line="22"/>
        <source>Zero-point bits per group</source>
        <translation>グループあたりのゼロ点のビット数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/workload_form.py" line="24"/>
        <source>auto (16-bit when group-quantized)</source>
        <translation>自動（グループ量子化なら 16 ビット）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/workload_form.py" line="25"/>
        <source>yes</source>
        <translation>はい</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/workload_form.py" line="26"/>
        <source>no</source>
        <translation>いいえ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/workload_form.py" line="28"/>
        <source>Embeddings unquantized</source>
        <translation>埋め込みを量子化しない</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/workload_form.py" line="29"/>
        <source>Only experts quantized</source>
        <translation>エキスパートのみ量子化</translation>
    </message>
</context>
<context>
    <name>WorkloadForm</name>
    <message>
        <location filename="../../vramdesk/gui/workload_form.py" line="37"/>
        <source>Workload</source>
        <translation>ワークロード</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/workload_form.py" line="38"/>
        <source>Context (tokens per sequence)</source>
        <translation>コンテキスト（シーケンスあたりのトークン数）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/workload_form.py" line="39"/>
        <source>Concurrent sequences</source>
        <translation>同時シーケンス数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/workload_form.py" line="42"/>
        <source>or live tokens in all</source>
        <translation>または保持トークン総数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/workload_form.py" line="45"/>
        <source>Prompt length (prefill)</source>
        <translation>プロンプト長（プリフィル）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/workload_form.py" line="45"/>
        <source>no prefill</source>
        <translation>プリフィルなし</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/workload_form.py" line="46"/>
        <source>Prefill chunk (tokens)</source>
        <translation>プリフィルのチャンク（トークン）</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/workload_form.py" line="46"/>
        <source>off</source>
        <translation>オフ</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/workload_form.py" line="47"/>
        <source>Live activation buffers</source>
        <translation>同時に生きている活性化バッファ数</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/workload_form.py" line="48"/>
        <source>Logits for every position</source>
        <translation>全位置のロジットを保持</translation>
    </message>
    <message>
        <location filename="../../vramdesk/gui/workload_form.py" line="49"/>
        <source>KV cache dtype</source>
        <translation>KV キャッシュの型</translation>
    </message>
</context>
<context>
    <name>window</name>
    <message>
        <location filename="../../vramdesk/gui/session.py" line="53"/>
        <source>Last session not restored: {0}</source>
        <translation>前回のセッションを復元できませんでした: {0}</translation>
    </message>
</context>
</TS>
