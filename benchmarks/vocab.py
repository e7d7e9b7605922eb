"""Word lists for the benchmark corpus: English, simplified and traditional Chinese.

Every list was written for this benchmark. The words are drawn with Zipf-like weights (earlier
entries more often), so unrelated documents share the common words and some common phrases, as
real reports from one office do, without sharing passages.
"""

from __future__ import annotations


def _w(words: str) -> list[str]:
    return words.split()


EN_NOUNS = _w("""
report budget contract policy meeting schedule customer supplier invoice payment project team
manager office department review proposal agreement account audit risk plan strategy market
product service quality standard training survey network system server database backup security
licence document letter notice request response decision committee council board member employee
staff partner vendor client region district city village river bridge road school hospital
library museum garden harbour station airport warehouse factory shop price cost revenue profit
loss tax fee grant fund loan interest rate growth decline forecast estimate target goal result
outcome issue problem solution change update version release feature design test error failure
delay deadline milestone phase stage step process procedure method approach tool device machine
engine vehicle truck train ship shipment order delivery stock inventory resource energy water
power fuel climate weather season harvest crop farm field forest coast island mountain valley
border country nation government ministry agency court law rule regulation permit inspection
incident accident claim complaint appeal hearing witness evidence record archive file folder page
chapter section paragraph table chart figure map photo image sample batch unit item component
module interface platform website user password message email call visit trip journey event
conference workshop seminar course lecture student teacher parent child family neighbour resident
citizen volunteer guest visitor tourist expert engineer doctor nurse lawyer officer director
chairman secretary treasurer editor author reader audience café résumé façade bakery orchestra
canal lighthouse tunnel ferry glacier meadow quarry vineyard
""")

EN_ADJECTIVES = _w("""
annual quarterly monthly weekly new old final draft revised current previous next local regional
national global public private internal external technical financial legal medical social
economic environmental urgent minor major significant small large careful detailed brief clear
complex simple early late formal informal strong weak stable flexible reliable safe secure open
closed full partial joint shared separate additional main key basic advanced modern traditional
common rare expensive cheap efficient accurate independent naïve northern southern coastal rural
""")

EN_VERBS = _w("""
approved reviewed rejected postponed delayed signed drafted revised discussed published announced
confirmed requested received delivered shipped repaired replaced installed tested measured
inspected reported recorded described explained questioned answered supported opposed funded
reduced increased doubled expanded closed opened launched completed finished started planned
organised hosted visited invited hired trained promoted appointed praised criticised examined
analysed compared checked updated moved sold bought rented built designed improved simplified
cancelled renewed extended shortened merged divided shared collected counted estimated predicted
noticed ignored accepted declined
""")

EN_ADVERBS = _w("""
quickly slowly carefully finally quietly formally briefly again already recently eventually
jointly partly fully largely promptly openly reluctantly
""")

EN_PREPOSITIONS = _w("""
in on at for with from after before during under over between near without across through
""")

EN_CONNECTORS = ["because", "although", "while", "since", "after", "before", "unless",
                 "so that", "even though", "whereas", "and", "but"]

EN_DETERMINERS = ["the", "the", "the", "a", "our", "their", "this", "that", "every", "each"]

EN_MONTHS = _w("""January February March April May June July August September October November
December""")

EN_PLACES = _w("""Lisbon Toronto Nairobi Oslo Osaka Denver Leeds Perth Valparaíso Tromsø Kraków
Montréal Galway Dundee Hobart Windhoek Tallinn Quito""")

EN_HEADERS = ["CONFIDENTIAL - internal use only", "Draft for discussion", "Printed copy",
              "Forwarded message", "Minutes of the meeting", "Please read before the meeting",
              "Version for comments", "Copy for the archive", "Shared with the steering group"]
EN_FOOTERS = ["Page 1 of 3", "All rights reserved.", "Sent from my phone",
              "End of document", "Questions? Reply to this message.",
              "This copy was printed for the file.", "Do not distribute."]

# -- simplified Chinese ------------------------------------------------------------------------
ZH_NOUNS = _w("""
公司 项目 预算 合同 会议 计划 报告 方案 客户 供应商 发票 付款 团队 经理 部门 审计 风险 策略
市场 产品 服务 质量 标准 培训 调查 网络 系统 服务器 数据库 备份 安全 许可 文件 通知 请求 答复
决定 委员会 董事会 成员 员工 伙伴 地区 城市 乡村 河流 桥梁 道路 学校 医院 图书馆 博物馆 花园
港口 车站 机场 仓库 工厂 商店 价格 成本 收入 利润 税收 费用 资金 贷款 利率 增长 预测 目标 结果
问题 办法 变化 版本 功能 设计 错误 故障 延误 期限 阶段 步骤 流程 程序 方法 工具 设备 机器 车辆
货物 订单 库存 资源 能源 电力 燃料 气候 天气 季节 收成 农田 森林 海岸 山区 边境 国家 政府 机构
法院 法律 规定 许可证 事故 索赔 投诉 听证 证据 记录 档案 页面 章节 表格 图表 地图 照片 样品
批次 单位 组件 模块 接口 平台 网站 用户 密码 消息 邮件 电话 旅行 活动 研讨会 课程 学生 教师
家长 儿童 家庭 居民 市民 志愿者 游客 专家 工程师 医生 护士 律师 官员 主任 主席 秘书 编辑 作者
读者 观众 水库 隧道 渡口 冰川 草原 果园 茶园 码头 灯塔 剧院
""")

ZH_VERBS = _w("""
批准 审核 拒绝 推迟 签署 起草 修订 讨论 发布 宣布 确认 要求 收到 交付 运送 修理 更换 安装
测试 测量 检查 记录 描述 解释 支持 反对 资助 减少 增加 扩大 关闭 开放 启动 完成 开始 组织
举办 参观 邀请 招聘 培训 任命 表扬 批评 分析 比较 更新 移动 出售 购买 租用 建设 改进 简化
取消 续签 延长 合并 分配 共享 收集 统计 估计 预测 注意 接受 落实 部署 协调 推进 整改 核实
""")

ZH_MODIFIERS = _w("""
年度 季度 每月 新的 最终 当前 以前 本地 区域 全国 全球 公共 私人 内部 外部 技术 财务 医疗
社会 经济 环境 紧急 重大 详细 简单 复杂 正式 稳定 灵活 可靠 联合 额外 主要 关键 基本 先进
现代 传统 常见 昂贵 高效 准确 独立
""")

ZH_ADVERBS = _w("""迅速 缓慢 认真 再次 已经 最近 共同 部分 充分 及时 逐步 全面 积极 依法""")

ZH_FUNCTION = _w("的 了 在 是 和 与 对 将 把 被 为 从 向 由 及 等 也 都 已 并 而 就 还 又 所")

ZH_TIMES = _w("今年 去年 明年 上月 本周 下周 近期 年初 年底 上半年 下半年")

ZH_PLACES = _w("""北京 上海 广州 深圳 杭州 成都 武汉 西安 南京 苏州 天津 重庆 厦门 青岛 长沙 郑州
昆明 大连 兰州 拉萨 乌鲁木齐 哈尔滨""")

ZH_HEADERS = ["内部资料 注意保密", "征求意见稿", "会议纪要（草稿）", "转发通知", "仅供参考",
              "存档副本", "请于会前阅读"]
ZH_FOOTERS = ["第1页 共3页", "以上内容如有疑问请联系办公室。", "本文件仅供内部使用。", "（完）",
              "抄送：各相关部门", "打印日期见页眉"]

# -- traditional Chinese (every character here encodes in Big5) --------------------------------
ZHT_NOUNS = _w("""
公司 項目 預算 合約 會議 計劃 報告 方案 客戶 供應商 發票 付款 團隊 經理 部門 審計 風險 策略
市場 產品 服務 品質 標準 培訓 調查 網路 系統 資料庫 備份 安全 文件 通知 請求 答覆 決定 委員會
董事會 成員 員工 夥伴 地區 城市 鄉村 河流 橋樑 道路 學校 醫院 圖書館 博物館 花園 港口 車站
機場 倉庫 工廠 商店 價格 成本 收入 利潤 稅收 費用 資金 貸款 利率 成長 預測 目標 結果 問題 辦法
變化 版本 功能 設計 錯誤 故障 延誤 期限 階段 步驟 流程 程式 方法 工具 設備 機器 車輛 貨物 訂單
庫存 資源 能源 電力 燃料 氣候 天氣 季節 收成 森林 海岸 山區 國家 政府 機構 法院 法律 規定 事故
投訴 證據 記錄 檔案 表格 圖表 地圖 照片 樣品 批次 單位 模組 平台 網站 密碼 訊息 郵件 電話 旅行
活動 課程 學生 教師 家長 兒童 家庭 居民 市民 遊客 專家 工程師 醫生 護士 律師 官員 主任 主席
秘書 編輯 作者 讀者 觀眾 碼頭 燈塔 劇院
""")

ZHT_VERBS = _w("""
批准 審核 拒絕 推遲 簽署 起草 修訂 討論 發布 宣布 確認 要求 收到 交付 運送 修理 更換 安裝
測量 描述 解釋 支持 反對 資助 減少 增加 擴大 關閉 開放 啟動 完成 開始 組織 舉辦 參觀 邀請
招聘 任命 表揚 批評 分析 比較 更新 移動 出售 購買 租用 建設 改進 簡化 取消 延長 合併 分配
共享 收集 統計 估計 注意 接受 協調 推動
""")

ZHT_MODIFIERS = _w("""
年度 季度 每月 新的 最終 目前 以前 本地 區域 全國 全球 公共 私人 內部 外部 技術 財務 醫療
社會 經濟 環境 緊急 重大 詳細 簡單 複雜 正式 穩定 靈活 可靠 聯合 額外 主要 關鍵 基本 先進
現代 傳統 常見 昂貴 高效 準確 獨立
""")

ZHT_ADVERBS = _w("迅速 緩慢 認真 再次 已經 最近 共同 部分 充分 及時 逐步 全面 積極")

ZHT_FUNCTION = _w("的 了 在 是 和 與 對 將 把 被 為 從 向 由 及 等 也 都 已 並 而 就 還 又 所")

ZHT_TIMES = _w("今年 去年 明年 上月 本週 下週 近期 年初 年底 上半年 下半年")

ZHT_PLACES = _w("臺北 高雄 臺中 臺南 新竹 基隆 桃園 嘉義 花蓮 香港 澳門 宜蘭")

ZHT_HEADERS = ["內部資料 注意保密", "徵求意見稿", "會議紀錄（草稿）", "轉發通知", "僅供參考"]
ZHT_FOOTERS = ["第1頁 共3頁", "如有疑問請聯絡辦公室。", "本文件僅供內部使用。", "（完）"]
