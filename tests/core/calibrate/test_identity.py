"""Is a start-up log about the model shown? (issue 23 item 7)

The logs are the excerpts of tests/data/engine-logs (ollama-llama3-8b-4216.log: the server log
of ollama/ollama#4216, as published); the parameter line is llama.cpp's format
(src/llama-model.cpp ``print_info``: "model params     = %.2f B").
"""

from tests.conftest import DATA
from vramdesk.core.calibrate.identity import check_model, matching_preset, name_key, names_match
from vramdesk.core.calibrate.logparse import parse_log, read_log
from vramdesk.core.store.bundled import bundled_model

LOGS = DATA / "engine-logs"


def test_the_names_logs_print():
    assert read_log(LOGS / "vllm-v1-0.11-llama8b.log").model_name == (
        "meta-llama/Llama-3.1-8B-Instruct"  # "Starting to load model ...", V1
    )
    assert read_log(LOGS / "vllm-v0-0.6-llama8b.log").model_name == (
        "meta-llama/Llama-3.1-8B-Instruct"  # the engine config "model='...'", V0
    )
    ollama = read_log(LOGS / "ollama-llama3-8b-4216.log")
    assert ollama.model_name == "Meta-Llama-3-8B-Instruct"  # general.name beats the blob path
    assert read_log(LOGS / "llamacpp-gptoss-iswa.log").model_name == "gpt-oss-20b-mxfp4.gguf"
    sglang = parse_log(
        "[2025 TP0] server_args=ServerArgs(model_path='Qwen/Qwen3-30B-A3B', tp_size=4"
    )
    assert sglang.model_name == "Qwen/Qwen3-30B-A3B"
    assert parse_log("llm_load_print_meta: model params     = 8.03 B").model_params == 8_030_000_000


def test_name_keys():
    assert name_key("meta-llama/Llama-3.1-8B-Instruct") == "llama318b"
    assert name_key("/models/gpt-oss-20b-mxfp4.gguf") == "gptoss20b"
    assert names_match("Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", "Llama-3.1-8B")
    assert names_match("Qwen3 30B A3B", "Qwen/Qwen3-30B-A3B-Instruct-2507")
    assert not names_match("Meta-Llama-3-8B-Instruct", "Llama-3.1-8B")  # Llama 3 is not 3.1
    assert not names_match("Qwen3-8B", "Qwen3-30B-A3B")
    assert not names_match("", "Llama-3.1-8B")
    assert matching_preset("meta-llama/Llama-3.1-8B-Instruct") == "llama-3.1-8b"
    assert matching_preset("Meta-Llama-3-8B-Instruct") == "meta-llama-3-8b"
    assert matching_preset("some-private-finetune") is None


def test_the_issue_case_a_llama_log_against_qwen3_30b():
    parsed = read_log(LOGS / "vllm-v1-0.11-llama8b.log")
    check = check_model(parsed, bundled_model("qwen3-30b-a3b").model)
    assert check.mismatch and check.preset == "llama-3.1-8b"
    assert check.warning() == (
        "warning: the log is about meta-llama/Llama-3.1-8B-Instruct, not Qwen3-30B-A3B "
        "(another name): its differences compare two models; load it with --preset llama-3.1-8b"
    )
    same = check_model(parsed, bundled_model("llama-3.1-8b").model)
    assert not same.mismatch and same.warning() is None


def test_parameter_count_beyond_five_percent():
    # Llama-3.1-8B has 8,030,261,248 parameters: 8.03 B is it, 8.50 B (+5.9 %) is not
    model = bundled_model("llama-3.1-8b").model
    close = parse_log("general.name str = Llama 3.1 8B\nprint_info: model params     = 8.03 B")
    assert not check_model(close, model).mismatch
    far = parse_log("print_info: model params     = 8.50 B")
    check = check_model(far, model)
    assert check.mismatch and check.reason == "8.50 B parameters, not 8.03 B"
    assert not check_model(parse_log("no model line"), model).mismatch
