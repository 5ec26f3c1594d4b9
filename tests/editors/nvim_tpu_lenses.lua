-- Drive real Neovim headless: the lenses of compiled TPU launches, in one editor session.
-- 1. BUDGET_FILE: the memory-budget lens of the compiled launch, the launch hover's Memory
--    section, then an edit of the block (as typed: a buffer change Neovim sends as didChange)
--    and the lens and diagnostics Neovim holds after it.
-- 2. WHAT_IF_FILE, opened next in the same session: the "TPU v5e compiled" lenses of its
--    interpreted launches, and its diagnostics.
-- Usage: nvim --headless --clean -n -i NONE -l nvim_tpu_lenses.lua SERVER_JSON BUDGET_FILE OUT_JSON
--        LAUNCH_LINE BLOCK_LINE NEW_BLOCK_TEXT WHAT_IF_FILE   (lines 1-based)
local common = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, "S").source:sub(2)), "nvim_common.lua"))
local server_cmd = vim.json.decode(arg[1])
local budget_file, out = arg[2], arg[3]
local launch_line, block_line = tonumber(arg[4]), tonumber(arg[5])
local new_block_text, what_if_file = arg[6], arg[7]
local result = { timings = {} }
local started = vim.uv.hrtime()

local function finish()
  common.finish(out, result)
end

local function mark(name)
  result.timings[name] = math.floor((vim.uv.hrtime() - started) / 1e6)
end

-- The lens titles Neovim holds for `buf`: {line (0-based), title}.
local function titles(buf)
  local found = {}
  for _, l in ipairs(vim.lsp.codelens.get(buf)) do
    table.insert(found, { line = l.range.start.line, title = l.command and l.command.title or vim.NIL })
  end
  return found
end

-- Refresh the lenses (Neovim asks the server again) until one title satisfies `want`.
local function wait_for_lens(buf, want)
  return vim.wait(30000, function()
    vim.lsp.codelens.refresh({ bufnr = buf })
    vim.wait(200)
    for _, t in ipairs(titles(buf)) do
      if t.title ~= vim.NIL and want(t.title) then return true end
    end
    return false
  end, 100)
end

local function codes(buf)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(found, { code = d.code, lnum = d.lnum })
  end
  return found
end

common.open(server_cmd, budget_file, { init_options = { debounceMs = 0 } })
local buf = vim.api.nvim_get_current_buf()
local client
result.attached = vim.wait(30000, function()
  client = vim.lsp.get_clients({ bufnr = buf, name = "pallas_lsp" })[1]
  return client ~= nil and client.initialized
end, 50)
if not result.attached then
  return finish()
end

-- 1. The budget lens, then the launch hover at `pallas_call`.
result.budget_lens = wait_for_lens(buf, function(t) return t:sub(1, 5) == "VMEM " end)
result.budget_titles = titles(buf)
mark("budget_lens")
if not result.budget_lens then
  return finish()
end
local launch_text = vim.api.nvim_buf_get_lines(buf, launch_line - 1, launch_line, false)[1]
vim.api.nvim_win_set_cursor(0, { launch_line, launch_text:find("pallas_call", 1, true) - 1 })
local hover = client:request_sync("textDocument/hover", vim.lsp.util.make_position_params(0, client.offset_encoding), 20000, buf)
result.hover = hover and hover.result and hover.result.contents and hover.result.contents.value or vim.NIL
mark("hover")

-- The edit: the block line replaced in the buffer; the lens follows it and PAL800 appears.
result.edited_from = vim.api.nvim_buf_get_lines(buf, block_line - 1, block_line, false)[1]
vim.api.nvim_buf_set_lines(buf, block_line - 1, block_line, false, { new_block_text })
result.budget_updated = wait_for_lens(buf, function(t) return t:find(" of ", 1, true) and t:sub(1, 8) ~= "VMEM 9 o" end)
result.budget_titles_after = titles(buf)
vim.wait(30000, function()
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.code == "PAL800" then return true end
  end
  return false
end, 50)
result.diagnostics_after = codes(buf)
mark("budget_edit")

-- 2. The next file in the same session: the compiled-TPU what-if lenses.
vim.cmd.edit(what_if_file)
vim.bo.filetype = "python"
local what_if_buf = vim.api.nvim_get_current_buf()
result.what_if_attached = vim.wait(30000, function()
  return vim.lsp.get_clients({ bufnr = what_if_buf, name = "pallas_lsp" })[1] ~= nil
end, 50)
result.what_if_lens = wait_for_lens(what_if_buf, function(t) return t:sub(1, 17) == "TPU v5e compiled:" end)
result.what_if_titles = titles(what_if_buf)
-- The lens answer came from the analysis the diagnostics come from: give their push or pull
-- a moment to land before reading them.
vim.wait(1000)
result.what_if_diagnostics = codes(what_if_buf)
mark("what_if")
finish()
