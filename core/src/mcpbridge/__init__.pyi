"""The public names of `mcpbridge`, for type checkers and for the lazy loader that serves
them (`__init__.py`): each is imported from its module when first read."""

from ._base.config import (
    ServerConfig as ServerConfig,
    Settings as Settings,
    load_settings as load_settings,
)
from ._base.errors import (
    ClaimStoreError as ClaimStoreError,
    ConfigError as ConfigError,
    MCPBridgeError as MCPBridgeError,
    PluginError as PluginError,
    RedactingFilter as RedactingFilter,
    ResumeConflictError as ResumeConflictError,
    ServerRequestError as ServerRequestError,
    describe as describe,
    install_log_redaction as install_log_redaction,
    lazy_exports as lazy_exports,
    redact_text as redact_text,
    redact_url as redact_url,
    validation_problems as validation_problems,
)
from ._base.fields import header_problem as header_problem, note_env_value as note_env_value
from ._base.pipeline import (
    RequestChanges as RequestChanges,
    Resumed as Resumed,
    TaskHandle as TaskHandle,
    ToolCallHandler as ToolCallHandler,
    ToolCallInterceptor as ToolCallInterceptor,
    ToolCallRequest as ToolCallRequest,
    ToolCallResult as ToolCallResult,
    ToolListHandler as ToolListHandler,
    ToolListInterceptor as ToolListInterceptor,
    ToolListRequest as ToolListRequest,
    compose as compose,
    error_result as error_result,
)
from ._base.protocol import Capability as Capability, ModernOnly as ModernOnly, capability_of as capability_of
from ._base.tool_errors import (
    AuthenticationError as AuthenticationError,
    CannotPauseError as CannotPauseError,
    InvalidHeader as InvalidHeader,
    InvalidToolArguments as InvalidToolArguments,
    MCPToolError as MCPToolError,
    ServerConnectionError as ServerConnectionError,
    ToolCallError as ToolCallError,
    ToolTimeoutError as ToolTimeoutError,
    check_headers as check_headers,
)
from ._compat import tools_stream_writer as tools_stream_writer
from ._facade.bridge import MCPBridge as MCPBridge
from ._platform.declaration import DIRECT as DIRECT, Plugin as Plugin, PluginInfo as PluginInfo
from ._platform.hookspecs import (
    AddCommand as AddCommand,
    BridgeContext as BridgeContext,
    BridgeObserver as BridgeObserver,
    Stash as Stash,
    StashKey as StashKey,
    ToolReview as ToolReview,
    hookimpl as hookimpl,
)
from ._platform.plugins import (
    InstalledPlugins as InstalledPlugins,
    installed_plugins as installed_plugins,
)
from ._session.listing import ServerInfo as ServerInfo
from ._session.loops import on_caller_loop as on_caller_loop
from ._toolkit.claims import ClaimStore as ClaimStore, LocalClaims as LocalClaims
from ._toolkit.interrupts import (
    CallBudgets as CallBudgets,
    InterruptLike as InterruptLike,
    Question as Question,
    RoundAnswerer as RoundAnswerer,
    call_of as call_of,
    pause as pause,
    split_round as split_round,
)
from ._toolkit.selectors import (
    ServerName as ServerName,
    ToolHints as ToolHints,
    ToolSelector as ToolSelector,
    selected as selected,
    tool_hints as tool_hints,
)
from ._toolkit.sources import TextPattern as TextPattern, ValueSource as ValueSource, thread_id as thread_id
from ._tools.arguments import ArgumentChecks as ArgumentChecks, call_tool_checked as call_tool_checked
from ._tools.results import (
    STRUCTURED_CONTENT as STRUCTURED_CONTENT,
    content_block as content_block,
    result_text as result_text,
)
from ._tools.schemas import model_schema as model_schema, schema_problems as schema_problems
from ._tools.tool import MCPTool as MCPTool, definition_fingerprint as definition_fingerprint
