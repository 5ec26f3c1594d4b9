-- Drive real Neovim headless: the interpret-readiness lenses on a compiled launch, then the
-- "Debug on CPU" code action on it, applied the way Neovim applies any code action's edit.
-- Usage: nvim --headless --clean -n -i NONE -l nvim_what_if.lua SERVER_JSON FILE OUT_JSON LAUNCH_LINE
local common = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, "S").source:sub(2)), "nvim_common.lua"))
local server_cmd = vim.json.decode(arg[1])
local file, out = arg[2], arg[3]
local launch_line = tonumber(arg[4]) -- 1-based line of the launch
local result = {}

local function finish()
  common.finish(out, result)
end

common.open(server_cmd, file)

local buf = vim.api.nvim_get_current_buf()
local client
result.attached = vim.wait(30000, function()
  client = vim.lsp.get_clients({ bufnr = buf, name = "pallas_lsp" })[1]
  return client ~= nil and client.initialized
end, 50)
if not result.attached then
  return finish()
end
-- The lenses: refreshed until the server has analysed the file (a compiled launch has no
-- diagnostic to wait for).
result.titles = {}
result.lenses = vim.wait(30000, function()
  vim.lsp.codelens.refresh({ bufnr = buf })
  vim.wait(200)
  return #vim.lsp.codelens.get(buf) > 0
end, 100)
for _, l in ipairs(vim.lsp.codelens.get(buf)) do
  table.insert(result.titles, { line = l.range.start.line, title = l.command and l.command.title or vim.NIL })
end

-- The code actions on the launch line; apply "Debug on CPU".
vim.api.nvim_win_set_cursor(0, { launch_line, 4 })
local params = vim.lsp.util.make_range_params(0, client.offset_encoding)
params.context = { diagnostics = {} }
local actions = client:request_sync("textDocument/codeAction", params, 20000, buf)
result.actions = {}
local debug
for _, a in ipairs(actions and actions.result or {}) do
  table.insert(result.actions, a.title)
  if not debug and a.title:sub(1, 12) == "Debug on CPU" then debug = a end
end
if debug then
  if not debug.edit then -- (resolved lazily by servers that support it)
    local resolved = client:request_sync("codeAction/resolve", debug, 20000, buf)
    debug = resolved and resolved.result or debug
  end
  vim.lsp.util.apply_workspace_edit(debug.edit, client.offset_encoding)
  result.applied = debug.title
  vim.cmd("silent! write")
  -- After the rewrite the launch is interpreted: its lenses say so.
  vim.wait(1500)
  vim.lsp.codelens.refresh({ bufnr = buf })
  vim.wait(1500)
  result.titles_after = {}
  for _, l in ipairs(vim.lsp.codelens.get(buf)) do
    table.insert(result.titles_after, { line = l.range.start.line, title = l.command and l.command.title or vim.NIL })
  end
end
finish()
